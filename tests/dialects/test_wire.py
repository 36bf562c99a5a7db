"""Helpers the wire modules share."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from harness.capture import Reply, ToolCall
from harness.dialects import Turn, args_json, get_dialect, output_tokens, pieces, sse, with_fields
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


def test_with_fields_sets_dotted_names_in_a_copy() -> None:
    usage: dict[str, Any] = {"in": 9, "details": {"kept": 1, "cached": 0}, "out": 2}
    fields = {"in": 10, "details.cached": 4, "new.deep": 3}
    assert with_fields(usage, fields) == {
        "in": 10,
        "details": {"kept": 1, "cached": 4},
        "out": 2,
        "new": {"deep": 3},
    }
    assert usage == {"in": 9, "details": {"kept": 1, "cached": 0}, "out": 2}
    assert with_fields({"a": 1}, {"meta.a": 2, "meta.b.c": 3}, root="meta") == {
        "a": 2,
        "b": {"c": 3},
    }


def dotted(value: Any, name: str) -> Any:
    for key in name.split("."):
        value = value[key]
    return value


@pytest.mark.parametrize(
    ("name", "under", "body"),
    [
        ("anthropic", "usage.", {"model": "claude-sonnet-4-5"}),
        ("openai", "usage.", {"model": "gpt-5.1"}),
        ("openai", "usage.", {"model": "deepseek-v4-flash"}),
        ("openai-responses", "usage.", {"model": "gpt-5.1"}),
        ("gemini", "", {}),
    ],
)
def test_every_wire_answers_with_its_dialect_s_usage_fields(
    name: str, under: str, body: dict[str, Any]
) -> None:
    """The cache fields a dialect names (``Dialect.usage_fields``) are where its wire's
    answer carries them, and the output tokens are the reply's."""
    dialect = get_dialect(name)
    assert dialect.wire is not None
    fields = dialect.usage_fields(1_000, 600, 300, body)
    reply = Reply("x" * 40)
    answer = orjson.loads(dialect.wire.message(Turn(reply, "m", 1, 1_000, body, 0, fields)))
    for field, value in fields.items():
        assert dotted(answer, under + field) == value
    usage = dialect.wire.usage(Turn(reply, "m", 1, 1_000, body, 0, fields))
    assert usage is not None
    assert output_tokens(reply) in usage.values()
