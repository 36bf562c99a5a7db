"""The shipped schemas: valid draft 2020-12, resolvable, and describing the messages."""

from __future__ import annotations

import orjson
import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]

from harness.model import Message, Preset, Text
from harness.protocol import (
    MESSAGE_KINDS,
    assemble_request,
    same_scenario_request,
    schema_path,
    start_request,
    stop_request,
    validate_message,
)
from harness.scenarios import Scenario, scenario_to_json

READY = {
    "ok": True,
    "version": 1,
    "implementation": {
        "name": "x",
        "language": "go",
        "dialects": ["openai"],
        "lifecycles": ["one-shot"],
    },
}


@pytest.mark.parametrize("kind", MESSAGE_KINDS)
def test_every_schema_is_valid_draft_2020_12_with_its_own_id(kind: str) -> None:
    schema = orjson.loads(schema_path(kind).read_bytes())  # type: ignore[arg-type]
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(f"/protocol/{kind}.schema.json")


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown message kind 'hello'"):
        schema_path("hello")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown message kind"):
        validate_message("hello", {})  # type: ignore[arg-type]


def test_the_harness_requests_are_valid() -> None:
    scenario = Scenario("s", "fork", Preset(), (Message("user", (Text("hi"),)),), ("go",))
    assert validate_message("start", start_request()) == []
    assert validate_message("stop", stop_request()) == []
    assert (
        validate_message("assemble", assemble_request(1, "openai", scenario_to_json(scenario)))
        == []
    )


SCENARIO = Scenario("s", "fork", Preset(), (Message("user", (Text("hi"),)),), ("go",))


def test_the_short_assemble_is_valid() -> None:
    assert validate_message("assemble", same_scenario_request(2, "gemini")) == []
    extended = {**same_scenario_request(2, "gemini"), "x-note": 1}
    assert validate_message("assemble", extended) == []


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"same_scenario": False}, "same_scenario: True was expected"),
        ({"same_scenario": 1}, "same_scenario: True was expected"),
        ({"same_scenario": True, "scenario": "full"}, "is valid under each of"),
        ({}, "is not valid under any of the given schemas"),
    ],
)
def test_an_assemble_has_exactly_one_of_scenario_and_same_scenario(
    changes: dict[str, object], problem: str
) -> None:
    message: dict[str, object] = {"cmd": "assemble", "seq": 2, "dialect": "gemini"}
    for key, value in changes.items():
        message[key] = scenario_to_json(SCENARIO) if value == "full" else value
    problems = validate_message("assemble", message)
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    ("features", "problem"),
    [
        (
            ["same-scenario", "same-scenario"],
            "features: ['same-scenario', 'same-scenario'] has non-unique elements",
        ),
        (["Same"], "features[0]: 'Same' does not match '^[a-z][a-z0-9-]*$'"),
        (["a_b"], "features[0]: 'a_b' does not match"),
        ([3], "features[0]: 3 is not of type 'string'"),
        ("same-scenario", "features: 'same-scenario' is not of type 'array'"),
    ],
)
def test_bad_features_are_refused(features: object, problem: str) -> None:
    problems = validate_message("start-reply", {**READY, "features": features})
    assert any(problem in p for p in problems), problems


def test_features_are_optional_and_may_be_anything_well_named() -> None:
    for features in ([], ["same-scenario"], ["same-scenario", "later-thing2"]):
        assert validate_message("start-reply", {**READY, "features": features}) == []
    refused = {"ok": False, "error": "no", "features": ["same-scenario"]}
    assert validate_message("start-reply", refused) != []  # only a ready reply declares them


def test_the_scenario_is_checked_through_the_scenario_schema() -> None:
    problems = validate_message("assemble", assemble_request(3, "openai", {"id": "s"}))
    assert "scenario: 'action' is a required property" in problems


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ({"version": 1, "implementation": {}}, "implementation: 'name' is a required property"),
        ({**READY, "version": 2}, "version: 1 was expected"),
        ({"ok": False}, "(the message): 'error' is a required property"),
        ({**READY, "extra": 1}, "'extra' does not match any of the regexes: '^x-'"),
    ],
)
def test_start_reply_problems_name_the_path(message: dict[str, object], problem: str) -> None:
    assert any(problem in p for p in validate_message("start-reply", message))


def test_extensions_are_allowed() -> None:
    assert validate_message("start-reply", {**READY, "x-build": "abc"}) == []
    assert (
        validate_message("assemble-reply", {"seq": 1, "status": "skipped", "reason": "", "x-t": 1})
        == []
    )


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ({"seq": 1, "status": "assembled", "parent": None}, "'children' is a required property"),
        (
            {"seq": 1, "status": "assembled", "parent": None, "children": [{}]},
            "children[0]: {} is not of type 'string'",
        ),
        ({"seq": 0, "status": "skipped", "reason": ""}, "seq: 0 is less than the minimum of 1"),
        ({"seq": 1, "status": "done"}, "status: 'done' is not one of"),
        ({"seq": 1, "status": "errored"}, "'message' is a required property"),
        (
            {"seq": 1, "status": "rejected", "message": "", "children": []},
            "'children' does not match",
        ),
    ],
)
def test_assemble_reply_problems(message: dict[str, object], problem: str) -> None:
    assert any(problem in p for p in validate_message("assemble-reply", message))


def test_many_problems_are_capped() -> None:
    message = {"seq": 1, "status": "assembled", "parent": None, "children": list(range(40))}
    problems = validate_message("assemble-reply", message)
    assert len(problems) == 21
    assert problems[-1] == "... and 20 more"
