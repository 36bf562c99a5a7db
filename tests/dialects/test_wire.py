"""Helpers the wire modules share."""

from __future__ import annotations

from harness.capture import Reply, ToolCall
from harness.dialects import args_json, output_tokens, pieces, sse
from harness.model import FrozenDict


def test_sse_framing() -> None:
    assert sse({"a": 1}) == b'data: {"a":1}\n\n'
    assert sse(b"[DONE]") == b"data: [DONE]\n\n"
    assert sse({"type": "ping"}, event="ping") == b'event: ping\ndata: {"type":"ping"}\n\n'


def test_pieces() -> None:
    assert pieces("") == [""]
    assert pieces("abcdef", 4) == ["abcd", "ef"]
    assert "".join(pieces("é" * 40)) == "é" * 40


def test_args_json_keeps_order_and_is_compact() -> None:
    assert args_json(ToolCall("f", FrozenDict({"z": 1, "a": "é"}))) == '{"z":1,"a":"é"}'


def test_output_tokens() -> None:
    assert output_tokens(Reply("")) == 1
    assert output_tokens(Reply("x" * 40)) == 10
