"""Scripts: the format is read into rules, and every mistake names the file and JSON path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.capture import (
    DEFAULT_FORK_TAG,
    DEFAULT_REPLY,
    Reply,
    Rule,
    ScriptError,
    ToolCall,
    When,
    load_script,
    parse_script,
)
from harness.model import FrozenDict

EXAMPLES = Path(__file__).parents[2] / "examples" / "capture"


def test_full_script_is_read() -> None:
    script = parse_script(
        {
            "comment": "x",
            "fork_tag": "<worker>",
            "rules": [
                {
                    "when": {"first": True, "in_fork_child": False, "turn": 1, "nth_request": 2},
                    "reply": {"text": "hi", "call": [{"name": "fork", "args": {"b": 1, "a": 2}}]},
                    "mark": "parent",
                    "times": 1,
                },
                {"reply": {"call": {"name": "ping"}}},
            ],
            "default": {"text": "bye"},
        },
        source="s.json",
    )
    assert script.fork_tag == "<worker>"
    assert script.default == Reply(text="bye")
    assert script.source == "s.json"
    first, second = script.rules
    assert first == Rule(
        reply=Reply("hi", (ToolCall("fork", FrozenDict({"b": 1, "a": 2})),)),
        when=When(turn=1, first=True, nth_request=2, in_fork_child=False),
        mark="parent",
        times=1,
    )
    assert list(first.reply.calls[0].args) == ["b", "a"]
    assert second == Rule(reply=Reply(calls=(ToolCall("ping", FrozenDict()),)))
    assert second.when == When()


def test_defaults() -> None:
    script = parse_script({})
    assert script.rules == ()
    assert script.default == DEFAULT_REPLY
    assert script.fork_tag == DEFAULT_FORK_TAG == "<fork-boilerplate>"


def test_every_when_condition_is_accepted() -> None:
    when = {
        "turn": 2,
        "first": False,
        "nth_request": 3,
        "history_contains": "a",
        "last_user_contains": "b",
        "system_contains": "c",
        "in_fork_child": True,
        "has_tool_result_for": "fork",
    }
    rule = parse_script({"rules": [{"when": when, "reply": {"text": "x"}}]}).rules[0]
    assert rule.when == When(**when)
    assert rule.when.needs_request
    assert not When(nth_request=1).needs_request


@pytest.mark.parametrize(
    ("script", "path", "problem"),
    [
        ([], "", "must be an object, not an array"),
        ({"rule": []}, "", "unknown field 'rule'"),
        ({"rules": {}}, "rules", "must be an array of rules, not an object"),
        ({"rules": [3]}, "rules[0]", "must be an object, not a number"),
        ({"rules": [{}]}, "rules[0].reply", "the reply is missing"),
        ({"rules": [{"reply": {}}]}, "rules[0].reply", 'a reply needs "text", "call" or both'),
        ({"rules": [{"reply": {"txt": "a"}}]}, "rules[0].reply", "unknown field 'txt'"),
        ({"rules": [{"reply": {"text": 1}}]}, "rules[0].reply.text", "must be a string"),
        ({"rules": [{"reply": {"call": []}}]}, "rules[0].reply.call", "non-empty array"),
        ({"rules": [{"reply": {"call": [{}]}}]}, "rules[0].reply.call[0].name", "missing"),
        (
            {"rules": [{"reply": {"call": [{"name": "f", "args": []}]}}]},
            "rules[0].reply.call[0].args",
            "must be an object, not an array",
        ),
        (
            {"rules": [{"reply": {"text": "a"}, "when": {"turn": "2"}}]},
            "rules[0].when.turn",
            "must be a whole number, not a string",
        ),
        (
            {"rules": [{"reply": {"text": "a"}, "when": {"turn": True}}]},
            "rules[0].when.turn",
            "must be a whole number, not a boolean",
        ),
        (
            {"rules": [{"reply": {"text": "a"}, "when": {"nth_request": 0}}]},
            "rules[0].when.nth_request",
            "must be 1 or more",
        ),
        (
            {"rules": [{"reply": {"text": "a"}, "when": {"first": "yes"}}]},
            "rules[0].when.first",
            "must be true or false",
        ),
        (
            {"rules": [{"reply": {"text": "a"}, "when": {"in_fork": True}}]},
            "rules[0].when",
            "unknown field 'in_fork'",
        ),
        ({"rules": [{"reply": {"text": "a"}, "times": 0}]}, "rules[0].times", "1 or more"),
        ({"rules": [{"reply": {"text": "a"}, "mark": 1}]}, "rules[0].mark", "must be a string"),
        ({"default": "hi"}, "default", "must be an object, not a string"),
        ({"fork_tag": ""}, "fork_tag", "must not be empty"),
    ],
)
def test_mistakes_name_the_json_path(script: Any, path: str, problem: str) -> None:
    with pytest.raises(ScriptError) as raised:
        parse_script(script, source="my-script.json")
    assert raised.value.path == path
    assert problem in raised.value.problem
    expected_start = f"my-script.json: {path}: " if path else "my-script.json: "
    assert str(raised.value).startswith(expected_start)


def test_load_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": [\n  {"reply": {"text": "a"}, "times": -1}\n]}')
    with pytest.raises(ScriptError, match=r"bad\.json: rules\[0\]\.times: must be 1 or more"):
        load_script(bad)


def test_load_reports_invalid_json_with_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"rules": [\n  {"reply": }\n]}')
    with pytest.raises(ScriptError, match=r"broken\.json: is not valid JSON: .* at line 2"):
        load_script(bad)


def test_load_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match=r"nope\.json: no such script file"):
        load_script(tmp_path / "nope.json")
    with pytest.raises(ScriptError, match="is a directory"):
        load_script(tmp_path)


@pytest.mark.parametrize("name", ["hello.json", "fork-siblings.json"])
def test_example_scripts_load(name: str) -> None:
    script = load_script(EXAMPLES / name)
    assert script.source.endswith(name)
