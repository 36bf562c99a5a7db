"""Reading the subject's lines: every reply the schemas refuse is a ProtocolError saying why."""

from __future__ import annotations

import re
from typing import Any

import pytest

from harness.protocol import (
    SAME_SCENARIO,
    AssembleReply,
    Implementation,
    ProtocolError,
    SubjectRefused,
    assemble_reply,
    decode_line,
    encode_line,
    read_assemble_reply,
    read_start_reply,
    refusal_reply,
    start_reply,
    validate_message,
)

BODY = b'{"messages":[{"role":"user","content":"h\xc3\xa9"}]}'
IMPLEMENTATION = Implementation("x", "go", ("openai", "gemini"), ("one-shot",), "1.2", "https://x")


def test_a_line_is_one_json_object() -> None:
    assert decode_line(b'{"a": 1}\r') == {"a": 1}


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b"hello", "the line is not JSON"),
        (b"[1]", "the line is an array, not a JSON object"),
        (b'{"a": "\xff"}', "the line is not UTF-8 (byte 0xff at 7)"),
    ],
)
def test_a_bad_line_is_a_protocol_error(line: bytes, problem: str) -> None:
    with pytest.raises(ProtocolError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        decode_line(line)


def test_start_reply_round_trips_and_is_valid() -> None:
    reply = start_reply(IMPLEMENTATION)
    assert validate_message("start-reply", reply) == []
    assert read_start_reply(reply) == IMPLEMENTATION
    described = {k: v for k, v in reply["implementation"].items() if k != "homepage"}
    assert read_start_reply({"version": 1, "implementation": described}).homepage is None


def test_a_refusal_says_why() -> None:
    reply = refusal_reply("too new")
    assert validate_message("start-reply", reply) == []
    with pytest.raises(SubjectRefused, match="the subject refused to start: too new"):
        read_start_reply(reply)


def _ready(implementation: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    """A valid start reply with top-level ``changes`` and ``implementation`` changes."""
    reply = start_reply(IMPLEMENTATION)
    reply["implementation"].update(implementation or {})
    return reply | changes


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (_ready(version=2), "speaks protocol version 2; this harness speaks version 1"),
        (_ready(version=True), "speaks protocol version true"),
        (_ready(ok="yes"), "ok must be a boolean"),
        (_ready(cmd="start"), "has cmd"),
        (_ready(seq=1), "has seq/status"),
        (_ready({"dialects": []}), "dialects must be a non-empty array of distinct names"),
        (_ready({"dialects": ["openai", "openai"]}), "dialects must be"),
        (_ready({"dialects": ["Open AI"]}), "dialects must be"),
        (_ready({"lifecycles": ["fork"]}), "lifecycles must be"),
        (_ready({"name": ""}), "name must be a non-empty string"),
        (_ready({"colour": "red"}), "implementation has unknown key 'colour'"),
        ({"version": 1}, "the start reply lacks implementation"),
        ({"version": 1, "implementation": []}, "implementation must be an object"),
    ],
)
def test_a_bad_start_reply_is_a_protocol_error(reply: dict[str, Any], problem: str) -> None:
    with pytest.raises(ProtocolError, match=problem):
        read_start_reply(reply)
    assert validate_message("start-reply", reply) != []


def test_features_round_trip_unknown_ones_kept() -> None:
    declared = Implementation("x", "go", ("openai",), ("one-shot",), features=(SAME_SCENARIO,))
    reply = start_reply(declared)
    assert reply["features"] == ["same-scenario"]
    assert read_start_reply(reply) == declared
    later = _ready(features=["same-scenario", "streaming-2", "x"])
    assert validate_message("start-reply", later) == []
    assert read_start_reply(later).features == ("same-scenario", "streaming-2", "x")
    assert read_start_reply(_ready(features=[])).features == ()
    assert read_start_reply(_ready()).features == ()


@pytest.mark.parametrize(
    ("features", "problem"),
    [
        ("same-scenario", "features must be an array of names, not a string"),
        ({"same-scenario": True}, "features must be an array of names, not an object"),
        ([1], 'features must hold names such as "same-scenario" .*, not 1$'),
        (["Same-Scenario"], 'not "Same-Scenario"'),
        (["same_scenario"], 'not "same_scenario"'),
        (["-x"], 'not "-x"'),
        ([""], 'not ""'),
        (["same-scenario", "same-scenario"], 'features names "same-scenario" twice'),
    ],
)
def test_bad_features_are_a_protocol_error(features: Any, problem: str) -> None:
    reply = _ready(features=features)
    with pytest.raises(ProtocolError, match=problem):
        read_start_reply(reply)
    assert validate_message("start-reply", reply) != []


@pytest.mark.parametrize(
    "reply",
    [
        AssembleReply(4, "assembled", BODY, (BODY, BODY), (BODY,), BODY),
        AssembleReply(4, "assembled", None, ()),
        AssembleReply(4, "rejected", BODY, message="no forks in forks"),
        AssembleReply(4, "rejected", message=""),
        AssembleReply(4, "skipped", message="no spawn"),
        AssembleReply(4, "errored", message="boom"),
    ],
)
def test_assemble_reply_round_trips_and_is_valid(reply: AssembleReply) -> None:
    message = assemble_reply(
        reply.seq,
        reply.status,
        parent=reply.parent,
        children=reply.children,
        follow_ups=reply.follow_ups,
        parent_next=reply.parent_next,
        message=reply.message,
    )
    assert validate_message("assemble-reply", message) == []
    assert read_assemble_reply(decode_line(encode_line(message)), 4) == reply


def _assembled(**changes: Any) -> dict[str, Any]:
    return {"seq": 4, "status": "assembled", "parent": None, "children": [], **changes}


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (_assembled(seq=5), "answers seq 5 where seq 4 was asked$"),
        (_assembled(seq=3), r"answers seq 3 where seq 4 was asked \(a second reply"),
        (_assembled(seq="4"), "seq must be an integer, not a string"),
        (_assembled(seq=True), "seq must be an integer, not a boolean"),
        ({"status": "skipped", "reason": ""}, "the reply has no seq"),
        (_assembled(cmd="assemble"), 'the reply has cmd "assemble"'),
        ({"ok": True, "version": 1}, "looks like a reply to start"),
        (_assembled(status="done"), "status must be one of assembled, rejected, skipped, errored"),
        ({"seq": 4, "status": "assembled", "parent": None}, "the assembled reply lacks children"),
        (_assembled(chidren=[]), "unknown key 'chidren'"),
        (
            _assembled(parent={"messages": []}),
            "parent must be a string holding the body's JSON text",
        ),
        (_assembled(children="{}"), "children must be an array of bodies, not a string"),
        (_assembled(children=["\ud800"]), r"children\[0\] cannot be encoded as UTF-8"),
        (_assembled(follow_ups=[1]), r"follow_ups\[0\] must be a string"),
        ({"seq": 4, "status": "errored", "message": 3}, "message must be a string, not 3"),
        ({"seq": 4, "status": "skipped"}, "the skipped reply lacks reason"),
    ],
)
def test_a_bad_assemble_reply_is_a_protocol_error(reply: dict[str, Any], problem: str) -> None:
    with pytest.raises(ProtocolError, match=problem):
        read_assemble_reply(reply, 4)
    if reply.get("seq") in (3, 5) or reply.get("children") == ["\ud800"]:
        return  # well-formed for the schema: only the reader knows the seq and encodes bodies
    assert validate_message("assemble-reply", reply) != []


def test_extension_keys_are_accepted() -> None:
    reply = read_assemble_reply(_assembled(**{"x-ms": 3}), 4)
    assert reply.status == "assembled"


@pytest.mark.parametrize(
    "text", ["{", "[1]", "null", '"x"', "", "  ", '{"a":1} trailing', '{"a": "\u00e9\u4e2d"}']
)
def test_a_body_is_read_for_its_shape_and_its_text_kept_byte_for_byte(text: str) -> None:
    """What a body's text holds is rule well-formed's to judge: the reader neither parses it
    nor refuses it, in the reader or in the schema, and hands its UTF-8 bytes on as sent."""
    message = _assembled(parent=text, children=[text, text], follow_ups=[text], parent_next=text)
    assert validate_message("assemble-reply", message) == []
    reply = read_assemble_reply(decode_line(encode_line(message)), 4)
    data = text.encode("utf-8")
    assert (reply.parent, reply.children, reply.follow_ups, reply.parent_next) == (
        data,
        (data, data),
        (data,),
        data,
    )
    rejected = {"seq": 4, "status": "rejected", "message": "no", "parent": text}
    assert read_assemble_reply(rejected, 4).parent == data


@pytest.mark.parametrize("key", ["parent", "children", "follow_ups", "parent_next"])
def test_a_body_that_cannot_become_bytes_is_a_protocol_error_naming_where(key: str) -> None:
    text = '{"a":"\udc80"}'
    value: Any = [text] if key in ("children", "follow_ups") else text
    where = f"{key}[0]" if isinstance(value, list) else key
    with pytest.raises(ProtocolError, match=rf"^{re.escape(where)} cannot be encoded as UTF-8 "):
        read_assemble_reply(_assembled(**{key: value}), 4)
