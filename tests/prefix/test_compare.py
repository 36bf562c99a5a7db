"""Planted differences in each dialect: the locator names the right offset, segment and path."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from harness.dialects import get_dialect
from harness.prefix import MISSING, StreamError, compare, prefix_stream

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "Path to the file"}},
    "required": ["path"],
}
TOOLS = [("read_file", "Read a file."), ("search", "Search the repo."), ("agent", "Fork.")]
TURNS = ["Fix the failing test.", "Looking at it now.", "It is in tests/test_io.py.", "Found it."]


def openai_body() -> dict[str, Any]:
    return {
        "model": "gpt-4.1",
        "temperature": 0.2,
        "tools": [
            {"type": "function", "function": {"name": n, "description": d, "parameters": SCHEMA}}
            for n, d in TOOLS
        ],
        "messages": [{"role": "system", "content": "You are a coding agent."}]
        + [
            {"role": "user" if i % 2 == 0 else "assistant", "content": t}
            for i, t in enumerate(TURNS)
        ],
    }


def anthropic_body() -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "temperature": 0.2,
        "tools": [{"name": n, "description": d, "input_schema": SCHEMA} for n, d in TOOLS],
        "system": [{"type": "text", "text": "You are a coding agent."}],
        "messages": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": t}
            for i, t in enumerate(TURNS)
        ],
    }


def gemini_body() -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": "You are a coding agent."}]},
        "tools": [
            {
                "functionDeclarations": [
                    {"name": n, "description": d, "parameters": SCHEMA} for n, d in TOOLS
                ]
            }
        ],
        "generationConfig": {"temperature": 0.2},
        "contents": [
            {"role": "user" if i % 2 == 0 else "model", "parts": [{"text": t}]}
            for i, t in enumerate(TURNS)
        ],
    }


BODIES: dict[str, Callable[[], dict[str, Any]]] = {
    "openai": openai_body,
    "anthropic": anthropic_body,
    "gemini": gemini_body,
}


def tool_list(dialect: str, body: dict[str, Any]) -> list[Any]:
    return body["tools"][0]["functionDeclarations"] if dialect == "gemini" else body["tools"]


def history(dialect: str, body: dict[str, Any]) -> list[Any]:
    return body["contents" if dialect == "gemini" else "messages"]


def fork_of(dialect: str, parent: dict[str, Any]) -> dict[str, Any]:
    """A conforming fork: the parent's request plus the fork's own tail."""
    fork = copy.deepcopy(parent)
    tail = "<fork-boilerplate>\nwork alone\n</fork-boilerplate>\n\nDirective: check the CI logs"
    if dialect == "gemini":
        history(dialect, fork).append({"role": "user", "parts": [{"text": tail}]})
    else:
        history(dialect, fork).append({"role": "user", "content": tail})
    return fork


def run(dialect: str, parent: dict[str, Any], fork: bytes | dict[str, Any]):  # type: ignore[no-untyped-def]
    d = get_dialect(dialect)
    fork_json = orjson.loads(fork) if isinstance(fork, bytes) else fork
    return compare(d.parse(parent), d.parse(fork_json), strict=True)


def naive_offset(dialect: str, parent: dict[str, Any], fork: dict[str, Any]) -> int:
    d = get_dialect(dialect)
    a, b = bytes(prefix_stream(d.parse(parent))), bytes(prefix_stream(d.parse(fork)))
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return i


def swap_tools(dialect: str, fork: dict[str, Any]) -> None:
    tools = tool_list(dialect, fork)
    tools[1], tools[2] = tools[2], tools[1]


def reorder_schema(dialect: str, fork: dict[str, Any]) -> None:
    tool = tool_list(dialect, fork)[2]
    holder = tool["function"] if dialect == "openai" else tool
    key = "input_schema" if dialect == "anthropic" else "parameters"
    holder[key] = {"required": ["path"], **SCHEMA}


def touch_old_message(dialect: str, fork: dict[str, Any]) -> None:
    message = history(dialect, fork)[1 + (dialect == "openai")]
    if dialect == "gemini":
        message["parts"][0]["text"] = "Looking at it now!"
    else:
        message["content"] = "Looking at it now!"


def add_system_block(dialect: str, fork: dict[str, Any]) -> None:
    block = "Current time: 2026-11-30T11:42:00Z"
    if dialect == "openai":
        fork["messages"].insert(1, {"role": "system", "content": block})
    elif dialect == "anthropic":
        fork["system"].append({"type": "text", "text": block})
    else:
        fork["systemInstruction"]["parts"].append({"text": block})


PLANTS = {
    # (dialect, plant): (segment in the fork, JSON path, start of the reason)
    ("openai", swap_tools): ("tools[1]", "tools[1].function.name", "text differs"),
    ("anthropic", swap_tools): ("tools[1]", "tools[1].name", "text differs"),
    ("gemini", swap_tools): (
        "tools[0].functionDeclarations[1]",
        "tools[0].functionDeclarations[1].name",
        "text differs",
    ),
    ("openai", reorder_schema): ("tools[2]", "tools[2].function.parameters", "key order differs"),
    ("anthropic", reorder_schema): ("tools[2]", "tools[2].input_schema", "key order differs"),
    ("gemini", reorder_schema): (
        "tools[0].functionDeclarations[2]",
        "tools[0].functionDeclarations[2].parameters",
        "key order differs",
    ),
    ("openai", touch_old_message): (
        "messages[2]",
        "messages[2].content",
        "text differs from byte 17",
    ),
    ("anthropic", touch_old_message): (
        "messages[1]",
        "messages[1].content",
        "text differs from byte 17",
    ),
    ("gemini", touch_old_message): (
        "contents[1]",
        "contents[1].parts[0].text",
        "text differs from byte 17",
    ),
    ("openai", add_system_block): ("messages[1]", "messages[1].role", "text differs"),
    ("anthropic", add_system_block): (
        "system[1]",
        "system[1]",
        "segment messages[0] in the parent",
    ),
    ("gemini", add_system_block): (
        "systemInstruction",
        "systemInstruction.parts",
        "1 items in the parent, 2 in the fork",
    ),
}


@pytest.mark.parametrize(
    ("dialect", "plant"), list(PLANTS), ids=lambda x: getattr(x, "__name__", x)
)
def test_planted_break_is_located(
    dialect: str, plant: Callable[[str, dict[str, Any]], None]
) -> None:
    parent = BODIES[dialect]()
    fork = fork_of(dialect, parent)
    plant(dialect, fork)
    result = run(dialect, parent, fork)
    segment, path, reason = PLANTS[(dialect, plant)]
    assert not result.preserved
    d = result.divergence
    assert d is not None
    assert d.offset == naive_offset(dialect, parent, fork)
    assert d.fork_frame is not None
    assert d.fork_frame.name == segment
    assert d.path == path
    assert d.reason.startswith(reason)
    assert result.shared == d.offset
    assert result.share == pytest.approx(d.offset / result.fork.length)


@pytest.mark.parametrize("dialect", list(BODIES))
def test_conforming_fork_keeps_the_whole_prefix(dialect: str) -> None:
    parent = BODIES[dialect]()
    result = run(dialect, parent, fork_of(dialect, parent))
    assert result.preserved
    assert result.divergence is None
    assert result.shared == result.parent.length
    assert result.parent.length < result.fork.length
    assert result.settings_changed == ()


@pytest.mark.parametrize("dialect", list(BODIES))
def test_whitespace_and_escapes_do_not_count(dialect: str) -> None:
    parent = BODIES[dialect]()
    fork = fork_of(dialect, parent)
    spaced = json.dumps(fork, indent=4, ensure_ascii=True).encode()  # "\u00e9"-style escapes
    assert spaced != orjson.dumps(fork)
    assert run(dialect, parent, spaced).preserved


@pytest.mark.parametrize("dialect", list(BODIES))
def test_non_ascii_escape_forms_are_the_same_bytes(dialect: str) -> None:
    parent = BODIES[dialect]()
    history(dialect, parent)[0].update(
        {"parts": [{"text": "café ☕"}]} if dialect == "gemini" else {"content": "café ☕"}
    )
    fork = fork_of(dialect, parent)
    escaped = json.dumps(fork, ensure_ascii=True).encode()
    assert b"\\u00e9" in escaped
    assert run(dialect, parent, escaped).preserved


SETTING = {
    "openai": "temperature",
    "anthropic": "temperature",
    "gemini": "generationConfig.temperature",
}


@pytest.mark.parametrize("dialect", list(BODIES))
def test_changed_setting_is_listed_not_a_prefix_break(dialect: str) -> None:
    parent = BODIES[dialect]()
    fork = fork_of(dialect, parent)
    if dialect == "gemini":
        fork["generationConfig"]["temperature"] = 0.9
    else:
        fork["temperature"] = 0.9
    result = run(dialect, parent, fork)
    assert result.preserved
    assert [(c.name, c.parent, c.fork) for c in result.settings_changed] == [
        (SETTING[dialect], 0.2, 0.9)
    ]
    assert SETTING[dialect] in result.settings_compared


def test_setting_present_on_one_side_only() -> None:
    parent = openai_body()
    fork = fork_of("openai", parent)
    fork["reasoning_effort"] = "high"
    del fork["temperature"]
    changes = {c.name: (c.parent, c.fork) for c in run("openai", parent, fork).settings_changed}
    assert changes == {"temperature": (0.2, MISSING), "reasoning_effort": (MISSING, "high")}


def test_fork_shorter_than_parent_breaks_at_its_end() -> None:
    parent = openai_body()
    fork = copy.deepcopy(parent)
    fork["messages"].pop()
    result = run("openai", parent, fork)
    d = result.divergence
    assert d is not None
    assert d.fork_frame is None
    assert d.parent_frame is not None
    assert d.parent_frame.name == "messages[4]"
    assert d.offset == result.fork.length
    assert d.reason == "the fork's prefix ends before this segment"


def test_a_segment_past_the_divergence_that_cannot_be_encoded_raises_in_compare() -> None:
    """The report states both streams' lengths, so every segment is encoded inside
    ``compare``, where the command turns the error into one sentence."""
    d = get_dialect("openai")
    parent = d.parse({"messages": [{"role": "user", "content": "a"}]})
    too_long = {"role": "user", "content": "x", "n": 10**5_000}  # more digits than str() gives
    fork = d.parse({"messages": [{"role": "user", "content": "b"}, too_long]})
    with pytest.raises(StreamError, match=r"^messages\[1\] cannot be re-encoded as JSON"):
        compare(parent, fork, strict=True)
    with pytest.raises(StreamError, match=r"^a unit of the rendered prefix cannot be encoded"):
        compare(parent, fork)
