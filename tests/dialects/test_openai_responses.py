"""The OpenAI Responses dialect: parsing, segments, settings, markers, continuations,
rendering, detection."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.dialects import DialectError, detect_dialect
from harness.dialects.anthropic import DIALECT as ANTHROPIC
from harness.dialects.openai import DIALECT as OPENAI_CHAT
from harness.dialects.openai_responses import DIALECT
from harness.model import (
    Extra,
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Opaque,
    OutputSchema,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
)
from harness.prefix import locate, prefix_stream
from harness.strategies import requests

from .mutations import mutated_bodies, reads_or_refuses

SHELL = {"type": "object", "properties": {"command": {"type": "array"}}, "required": ["command"]}
BREAK = {"mode": "explicit"}


def codex_like() -> dict[str, Any]:
    """A body of the shape an agent runtime sends: instructions, developer and user context
    items, reasoning, a call and its output, explicit breakpoints, routing key."""
    return {
        "model": "gpt-5.6",
        "instructions": "You are a coding agent.",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Sandbox: workspace-write."}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Fix the failing test."}],
            },
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Look at the test first."}],
                "encrypted_content": "gAAAA-opaque",
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Reading it.", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "shell",
                "arguments": '{"command":["pytest","-q"]}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "1 failed"},
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Go on.", "prompt_cache_breakpoint": BREAK}
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "name": "shell",
                "description": "Run a command.",
                "parameters": SHELL,
                "strict": False,
            },
            {"type": "web_search"},
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "reasoning": {"effort": "high", "summary": "auto"},
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "conversation-1",
        "text": {"verbosity": "low"},
    }


def parse(body: dict[str, Any]) -> Request:
    return DIALECT.parse(body).request


def render_dict(request: Request) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(DIALECT.render(request))
    return value


# 1. a realistic body --------------------------------------------------------------------


def test_realistic_body_to_exact_request() -> None:
    request = parse(codex_like())
    assert request.preset.system == ("You are a coding agent.", "Sandbox: workspace-write.")
    assert request.preset.tools[0] == Tool("shell", "Run a command.", freeze(SHELL))
    assert request.preset.tools[1] == Tool("web_search", parameters=freeze({"type": "web_search"}))
    assert [m.role for m in request.history] == ["user", "model", "user"]
    assert request.history[0].parts == (Text("Fix the failing test."),)
    assert request.history[1].parts == (
        Thinking("Look at the test first.", "gAAAA-opaque"),
        Text("Reading it."),
        FunctionCall("shell", freeze({"command": ["pytest", "-q"]}), id="call_1"),
    )
    assert request.history[2].parts == (
        FunctionResponse("shell", "1 failed", id="call_1"),
        Text("Go on."),
    )
    settings_ = request.preset.settings
    assert settings_.model == "gpt-5.6"
    assert settings_.thinking == ThinkingConfig(effort="high")
    assert settings_.tool_choice == ToolChoice("auto")
    own = settings_.extra["openai-responses"]
    assert own["prompt_cache_key"] == "conversation-1"
    assert own["reasoning"] == FrozenDict({"summary": "auto"})
    assert own["tools"] == FrozenDict({"shell": FrozenDict({"strict": False})})
    assert request.cache_breakpoints == ("input[6]",)


def test_realistic_body_segments_in_cache_order_without_markers() -> None:
    parsed = DIALECT.parse(codex_like())
    names = [s.name for s in parsed.segments]
    assert names == ["instructions", "tools[0]", "tools[1]", *(f"input[{k}]" for k in range(7))]
    last = parsed.segments[-1].value
    assert last["content"] == [{"type": "input_text", "text": "Go on."}]
    assert DIALECT.families(parsed.segments) == (
        "system",
        "tools",
        "tools",
        "system",  # the leading developer item is system, though it comes after the tools
        *("history",) * 6,
    )


def test_realistic_body_renders_back_as_sent() -> None:
    body = codex_like()
    assert orjson.loads(DIALECT.render(parse(body))) == body
    assert DIALECT.render(parse(body)) == DIALECT.render(
        parse(orjson.loads(DIALECT.render(parse(body))))
    )


def test_settings_flatten_reasoning_and_text() -> None:
    assert DIALECT.settings(codex_like()) == {
        "model": "gpt-5.6",
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "prompt_cache_key": "conversation-1",
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "reasoning.effort": "high",
        "reasoning.summary": "auto",
        "text.verbosity": "low",
    }


@pytest.mark.parametrize(
    ("setting", "scope"),
    [
        ("model", "request"),
        ("prompt_cache_key", "request"),
        ("reasoning.effort", "request"),
        ("reasoning.summary", None),
        ("text.verbosity", None),
        ("store", None),
        ("temperature", None),
    ],
)
def test_cache_scope(setting: str, scope: str | None) -> None:
    assert DIALECT.cache_scope(setting) == scope


def test_item_ids_and_status_are_bookkeeping_not_prefix() -> None:
    body = codex_like()
    other = copy.deepcopy(body)
    other["input"][0]["id"] = "msg_fresh"
    other["input"][3]["status"] = "completed"
    other["input"][4]["id"] = "fc_other"
    assert DIALECT.parse(body).segments == DIALECT.parse(other).segments
    ref = {"type": "item_reference", "id": "msg_0"}
    assert DIALECT.parse({"input": [ref]}).segments[0].value == ref  # its id is its content
    assert orjson.loads(DIALECT.render(parse(other))) == other  # still sent as they were


# 2. markers ------------------------------------------------------------------------------


def test_breakpoints_with_block_positions_and_ttls() -> None:
    body = codex_like()
    body["input"][5]["prompt_cache_breakpoint"] = {"mode": "explicit", "ttl": "12h"}
    body["prompt_cache_options"] = {"ttl": "30m"}
    marks = DIALECT.parse(body).markers
    # instructions, 2 tools, then one block per content part / other item
    assert [(m.segment, m.block, m.ttl) for m in marks] == [
        ("input[5]", 8, "12h"),
        ("input[6]", 9, "30m"),
    ]
    assert DIALECT.parse(body).cache_markers == ("input[5]", "input[6]")
    assert DIALECT.facts.markers is not None
    assert DIALECT.facts.markers.limit == 4
    assert DIALECT.facts.markers.lookback is None


def test_a_request_ttl_is_every_breakpoint_default() -> None:
    body = codex_like()
    body["prompt_cache_options"] = {"ttl": "12h", "mode": "explicit"}
    assert [m.ttl for m in DIALECT.parse(body).markers] == ["12h"]
    body.pop("prompt_cache_options")
    assert [m.ttl for m in DIALECT.parse(body).markers] == ["30m"]


def test_a_moved_breakpoint_changes_no_segment() -> None:
    body = codex_like()
    moved = copy.deepcopy(body)
    del moved["input"][6]["content"][0]["prompt_cache_breakpoint"]
    moved["input"][1]["content"][0]["prompt_cache_breakpoint"] = BREAK
    a, b = DIALECT.parse(body), DIALECT.parse(moved)
    assert a.segments == b.segments
    assert a.markers != b.markers


# 3. property round-trips -----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(requests())
def test_render_parse_render_is_byte_identical(request: Request) -> None:
    first = DIALECT.render(request)
    parsed = DIALECT.parse(orjson.loads(first))
    again = DIALECT.render(parsed.request)
    assert again == first
    assert DIALECT.parse(orjson.loads(again)).request == parsed.request


@settings(max_examples=100, deadline=None)
@given(requests(), st.lists(st.text(max_size=10), max_size=2))
def test_in_history_system_messages_round_trip(request: Request, notes: list[str]) -> None:
    """Leading neutral system messages fold into the system blocks; later ones stay."""
    extra = tuple(Message("system", (Text(n),)) for n in notes)
    shifted = Request(request.preset, (*extra, *request.history, *extra))
    first = DIALECT.render(shifted)
    parsed = parse(orjson.loads(first))
    assert parsed.preset.system == (*request.preset.system, *notes)
    assert DIALECT.render(parsed) == first


# 4. rendering the neutral model ------------------------------------------------------------


def test_render_maps_every_part() -> None:
    request = Request(
        Preset(
            system=("Be brief.", "Repository rules."),
            tools=(Tool("read_file", "Read a file.", freeze(SHELL)),),
            settings=Settings(
                model="m-1",
                temperature=0.2,
                max_output_tokens=512,
                stop=("END",),
                top_k=3,
                thinking=ThinkingConfig(effort="low"),
                tool_choice=ToolChoice("tool", ("read_file",)),
                output_schema=OutputSchema(freeze({"type": "object"})),
            ),
        ),
        (
            Message(
                "user", (Text("Look:"), Image(mime_type="image/png", data="AAA", detail="low"))
            ),
            Message(
                "model",
                (
                    Thinking("plan", "sig"),
                    Thinking("hidden", redacted=True),
                    Text("On it."),
                    FunctionCall("read_file", freeze({"path": "a"}), id="c1"),
                    FunctionCall("patch", "*** raw", id="c2", extra=custom()),
                ),
            ),
            Message(
                "user",
                (
                    FunctionResponse("read_file", freeze({"ok": True}), id="c1"),
                    FunctionResponse("patch", "done", id="c2", extra=custom()),
                ),
            ),
        ),
    )
    assert render_dict(request) == {
        "model": "m-1",
        "instructions": "Be brief.",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Repository rules."}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Look:"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,AAA",
                        "detail": "low",
                    },
                ],
            },
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "plan"}],
                "encrypted_content": "sig",
            },
            {"type": "reasoning", "summary": [], "encrypted_content": "hidden"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "On it."}],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "read_file",
                "arguments": '{"path":"a"}',
            },
            {"type": "custom_tool_call", "call_id": "c2", "name": "patch", "input": "*** raw"},
            {"type": "function_call_output", "call_id": "c1", "output": '{"ok":true}'},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "done"},
        ],
        "tools": [
            {
                "type": "function",
                "name": "read_file",
                "description": "Read a file.",
                "parameters": SHELL,
            }
        ],
        "tool_choice": {"type": "function", "name": "read_file"},
        "text": {"format": {"type": "json_schema", "name": "output", "schema": {"type": "object"}}},
        "reasoning": {"effort": "low"},
        "temperature": 0.2,
        "max_output_tokens": 512,
    }


def custom() -> Extra:
    return Extra("openai-responses", FrozenDict({"type": "custom"}))


def test_a_call_into_a_namespace_keeps_it() -> None:
    item = {
        "type": "function_call",
        "call_id": "c",
        "name": "spawn",
        "namespace": "agents",
        "arguments": "{}",
    }
    call = parse({"input": [item]}).history[0].parts[0]
    assert call == FunctionCall(
        "spawn",
        freeze({}),
        id="c",
        extra=Extra("openai-responses", freeze({"namespace": "agents"})),
    )
    fresh = Request(Preset(), (Message("model", (call,)),))
    assert render_dict(fresh)["input"] == [item]


def test_redacted_reasoning_reads_back_as_redacted() -> None:
    item = {"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": "E"}
    body = {"input": [{"role": "user", "content": "hi"}, item]}
    assert parse(body).history[1].parts == (Thinking("", "E", redacted=True),)


@pytest.mark.parametrize(
    ("wire", "choice"),
    [
        ("none", ToolChoice("none")),
        ("required", ToolChoice("required")),
        ({"type": "function", "name": "f"}, ToolChoice("tool", ("f",))),
        (
            {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "f"}]},
            ToolChoice("auto", ("f",)),
        ),
    ],
)
def test_tool_choice_both_ways(wire: Any, choice: ToolChoice) -> None:
    body = {"input": [], "tool_choice": wire}
    assert parse(body).preset.settings.tool_choice == choice
    assert render_dict(parse(body))["tool_choice"] == wire


def test_a_tool_choice_without_neutral_form_is_kept_as_sent() -> None:
    body = {"input": [], "tool_choice": {"type": "web_search"}}
    assert parse(body).preset.settings.tool_choice is None
    assert render_dict(parse(body))["tool_choice"] == {"type": "web_search"}


def test_a_format_that_does_not_render_back_stays_in_extra_and_in_the_prefix() -> None:
    fmt = {"type": "json_schema", "name": "a", "schema": {}, "description": "why"}
    body = {"input": [], "text": {"format": fmt}}
    parsed = DIALECT.parse(body)
    assert parsed.request.preset.settings.output_schema is None
    assert [s.name for s in parsed.segments] == ["text.format"]
    assert render_dict(parsed.request)["text"] == {"format": fmt}


def test_unknown_items_and_parts_are_opaque_and_render_back_verbatim() -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    ref = {"type": "item_reference", "id": "msg_0"}
    file = {"type": "input_file", "file_id": "file-1"}
    body = {
        "input": [
            {"role": "user", "content": [file, {"type": "input_image", "file_id": "file-2"}]},
            search,
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": "no"}],
            },
            ref,
            {"type": "shell_call_output", "call_id": "s1", "output": []},
        ]
    }
    request = parse(body)
    user, model, tail = request.history
    assert [type(p) for p in user.parts] == [Opaque, Opaque]
    assert [p.kind for p in model.parts if isinstance(p, Opaque)] == [
        "web_search_call",
        "refusal",
        "item_reference",
    ]
    assert tail.parts == (
        Opaque("shell_call_output", freeze(body["input"][4]), "openai-responses"),
    )
    fresh = Request(request.preset, tuple(Message(m.role, m.parts) for m in request.history))
    assert render_dict(fresh)["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [file, {"type": "input_image", "file_id": "file-2"}],
        },
        search,
        {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]},
        ref,
        body["input"][4],
    ]


def test_a_string_input_is_one_user_message() -> None:
    body = {"model": "m", "input": "hello"}
    parsed = DIALECT.parse(body)
    assert (
        parsed.segments == DIALECT.parse({"input": [{"role": "user", "content": "hello"}]}).segments
    )
    assert [s.name for s in parsed.segments] == ["input[0]"]
    assert parsed.request.history == (Message("user", (Text("hello"),)),)


def test_extra_never_overrides_fields_render_owns() -> None:
    request = Request(
        Preset(
            settings=Settings(
                model="m", extra=freeze({"openai-responses": {"model": "x", "seed": 1}})
            )
        )
    )
    assert render_dict(request) == {"model": "m", "input": [], "seed": 1}


def test_other_dialects_opaque_parts_render_as_text() -> None:
    part = Opaque("document", freeze({"type": "document", "source": {}}), "anthropic")
    body = render_dict(Request(Preset(), (Message("user", (part,)),)))
    assert body["input"][0]["content"] == [{"type": "input_text", "text": part.as_text}]


# 5. continuations -----------------------------------------------------------------------


def test_a_continuation_names_its_stored_response_and_expands_ahead_of_its_input() -> None:
    parent = {"instructions": "S", "input": [{"role": "user", "content": "hi"}]}
    answer = Message("model", (FunctionCall("fork", freeze({}), id="c"),))
    child = {
        "instructions": "S",
        "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "c", "output": "forked"}],
    }
    assert DIALECT.continued(child) == "resp_1"
    assert DIALECT.continued(parent) is None
    expanded = DIALECT.expand(child, parent, [answer])
    assert "previous_response_id" not in expanded
    call = {"type": "function_call", "call_id": "c", "name": "fork", "arguments": "{}"}
    assert expanded["input"] == [*parent["input"], call, *child["input"]]
    assert expanded["instructions"] == "S"  # the child's own: not inherited by the provider
    assert DIALECT.expand({"input": "go"}, {"input": "hi"}, [])["input"] == [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "go"},
    ]


def test_other_dialects_have_no_continuations() -> None:
    assert OPENAI_CHAT.continued({"messages": [], "previous_response_id": "r"}) is None
    with pytest.raises(NotImplementedError):
        OPENAI_CHAT.expand({}, {}, [])


# 6. errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        ({}, "input", "is required"),
        ({"input": 3}, "input", "must be an array of input items or a string"),
        ({"input": [], "instructions": ["x"]}, "instructions", "must be a string"),
        ({"input": [], "tools": {}}, "tools", "must be an array"),
        ({"input": [], "tools": [1]}, "tools[0]", "expected a JSON object"),
        ({"input": [], "text": {"format": "json"}}, "text.format", "must be an object"),
        ({"input": [], "reasoning": "high"}, "reasoning", "must be an object"),
        ({"input": [7]}, "input[0]", "must be a JSON object"),
        ({"input": [{"content": "x"}]}, "input[0]", "type must be a string"),
        ({"input": [{"role": "robot", "content": "x"}]}, "input[0].role", "expected one of"),
        ({"input": [{"role": ["user"], "content": "x"}]}, "input[0].role", "expected one of"),
        ({"input": [{"role": "user"}]}, "input[0].content", "it is missing"),
        ({"input": [{"role": "user", "content": 5}]}, "input[0].content", "it is a number"),
    ],
)
def test_envelope_errors_raise_from_parse(body: Any, path: str, reason: str) -> None:
    with pytest.raises(DialectError) as caught:
        DIALECT.parse(body)
    assert caught.value.path == path
    assert reason in caught.value.reason


@pytest.mark.parametrize(
    ("item", "path"),
    [
        ({"type": "function_call", "call_id": "c", "arguments": "{}"}, "input[0].name"),
        ({"type": "function_call", "call_id": "c", "name": "f"}, "input[0].arguments"),
        ({"type": "function_call_output", "call_id": "c", "output": 3}, "input[0].output"),
        ({"type": "reasoning", "summary": "x"}, "input[0].summary"),
        ({"role": "user", "content": [{"type": "input_text"}]}, "input[0].content[0].text"),
        ({"role": "user", "content": [3]}, "input[0].content[0]"),
    ],
)
def test_malformed_items_raise_from_to_request(item: Any, path: str) -> None:
    with pytest.raises(DialectError) as caught:
        parse({"input": [item]})
    assert caught.value.path == path


# 7. detection ----------------------------------------------------------------------------


def test_detect_counts_responses_features_and_wins_over_chat() -> None:
    assert DIALECT.detect(codex_like()) >= 5
    best, sure = detect_dialect(codex_like())
    assert best is DIALECT
    assert sure
    assert DIALECT.detect({"input": "hi"}) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": "hi"}], "input": []},
        {"contents": [], "input": []},
        {"model": "m"},
        orjson.loads(
            OPENAI_CHAT.render(Request(Preset(system=("s",)), (Message("user", (Text("x"),)),)))
        ),
        orjson.loads(
            ANTHROPIC.render(Request(Preset(system=("s",)), (Message("user", (Text("x"),)),)))
        ),
    ],
)
def test_detect_is_zero_on_other_dialects(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0


JUNK_KEYS = st.sampled_from(["type", "role", "content", "input", "summary", "call_id", "output"])
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(JUNK_KEYS, st.text(max_size=5)), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JUNK.map(lambda v: {"input": v if isinstance(v, list) else [v]}))
@example({"input": [{"type": -9223372036854775809}]})  # beyond 64 bits, in an error message
def test_detect_and_parse_never_crash_on_junk_items(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    assert DIALECT.detect(body) >= 1
    assert body == before
    with contextlib.suppress(DialectError):
        DIALECT.parse(body).request  # noqa: B018 (the conversion is the test)
    DIALECT.cache_marks(body)


def test_a_string_input_parent_is_a_prefix_of_its_continuation() -> None:
    parent = {"instructions": "S", "input": "Fix the test."}
    answer = Message("model", (Text("On it."),))
    child = {"instructions": "S", "previous_response_id": "resp_1", "input": "Go on."}
    expanded = DIALECT.parse(DIALECT.expand(child, parent, [answer]))
    assert locate(prefix_stream(DIALECT.parse(parent)), prefix_stream(expanded)) is None


@settings(max_examples=300, deadline=None)
@given(mutated_bodies("openai-responses"))
def test_a_value_of_another_type_anywhere_is_a_dialect_error(body: Any) -> None:
    """A role that is a list, a content that is a number, a tool that is a string, a
    setting of the wrong type...: each reading method returns or raises DialectError."""
    reads_or_refuses(DIALECT, body)


def test_detect_never_fails_on_a_part_type_of_another_json_type() -> None:
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": []}]}]}
    assert DIALECT.detect(body) >= 1
    assert detect_dialect(body)[0] is DIALECT
