"""Building the protocol's lines: compact JSON, in the shapes of the schemas."""

from __future__ import annotations

import orjson
import pytest

from harness.check import bundled_fixtures
from harness.protocol import (
    PROTOCOL_VERSION,
    SAME_SCENARIO,
    Implementation,
    ReplyStatus,
    assemble_reply,
    assemble_request,
    encode_assemble,
    encode_assemble_parts,
    encode_line,
    encode_same_scenario,
    refusal_reply,
    same_scenario_request,
    start_reply,
    start_request,
    stop_request,
    validate_message,
)
from harness.scenarios import load_fixtures, scenario_to_json

BODY = '{"messages":[]}'


def test_lines_are_compact_json_ending_in_a_newline() -> None:
    assert encode_line({"cmd": "stop", "é": [1, 2]}) == '{"cmd":"stop","é":[1,2]}\n'.encode()


def test_the_harness_requests() -> None:
    assert PROTOCOL_VERSION == 1
    assert start_request() == {"cmd": "start", "version": 1}
    assert stop_request() == {"cmd": "stop"}
    scenario = {"id": "s"}
    request = assemble_request(7, "gemini", scenario)
    assert request == {"cmd": "assemble", "seq": 7, "dialect": "gemini", "scenario": scenario}


def test_start_replies() -> None:
    full = start_reply(Implementation("x", "go", ("openai",), ("spawn",), "2.0", "https://x"))
    assert list(full["implementation"]) == [
        *("name", "language", "version", "homepage", "dialects", "lifecycles")
    ]
    bare = start_reply(Implementation("x", "go", ("openai",), ("spawn",)))
    assert "version" not in bare["implementation"]
    assert "homepage" not in bare["implementation"]
    refused = refusal_reply("too old")
    assert refused == {"ok": False, "version": 1, "error": "too old"}
    for reply in (full, bare, refused):
        assert validate_message("start-reply", reply) == []
        assert "features" not in reply  # a subject without features says what it said before


def test_a_start_reply_with_features_lists_them_last() -> None:
    reply = start_reply(Implementation("x", "go", ("openai",), ("spawn",), None, None, ("a-b",)))
    assert list(reply) == ["ok", "version", "implementation", "features"]
    assert reply["features"] == ["a-b"]
    assert validate_message("start-reply", reply) == []


@pytest.mark.parametrize("dialect", ["gemini", "openai-responses", 'odd"name\u00e9'])
@pytest.mark.parametrize("seq", [1, 7, 12345678901])
def test_the_short_assemble_line(seq: int, dialect: str) -> None:
    assert SAME_SCENARIO == "same-scenario"
    request = same_scenario_request(seq, dialect)
    assert request == {"cmd": "assemble", "seq": seq, "dialect": dialect, "same_scenario": True}
    assert encode_same_scenario(seq, dialect) == encode_line(request)
    if dialect == "gemini":
        assert encode_same_scenario(seq, dialect) == (
            b'{"cmd":"assemble","seq":%d,"dialect":"gemini","same_scenario":true}\n' % seq
        )
        assert validate_message("assemble", request) == []


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("assembled", {"seq": 2, "status": "assembled", "parent": BODY, "children": [BODY]}),
        ("rejected", {"seq": 2, "status": "rejected", "message": "m", "parent": BODY}),
        ("skipped", {"seq": 2, "status": "skipped", "reason": "m"}),
        ("errored", {"seq": 2, "status": "errored", "message": "m"}),
    ],
)
def test_assemble_replies_carry_bodies_as_text(status: ReplyStatus, expected: object) -> None:
    reply = assemble_reply(2, status, parent=BODY.encode(), children=(BODY.encode(),), message="m")
    assert reply == expected
    assert validate_message("assemble-reply", reply) == []


def test_optional_bodies_appear_only_when_there_are_some() -> None:
    reply = assemble_reply(1, "assembled", follow_ups=(b"{}",), parent_next='{"é":1}'.encode())
    assert reply == {
        "seq": 1,
        "status": "assembled",
        "parent": None,
        "children": [],
        "follow_ups": ["{}"],
        "parent_next": '{"é":1}',
    }


@pytest.mark.parametrize("dialect", ["openai", "openai-responses", 'odd"name\u00e9'])
def test_an_assemble_line_from_encoded_scenario_bytes_is_the_same_line(dialect: str) -> None:
    for scenario in load_fixtures(bundled_fixtures()):
        data = scenario_to_json(scenario)
        line = encode_line(assemble_request(7, dialect, data))
        encoded = orjson.dumps(data)
        assert encode_assemble(7, dialect, encoded) == line
        parts = encode_assemble_parts(7, dialect, encoded)
        assert b"".join(parts) == line
        assert parts[1] is encoded  # the scenario is not copied
