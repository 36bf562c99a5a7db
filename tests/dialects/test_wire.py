"""Helpers the wire modules share."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from harness.capture import Reply, ToolCall
from harness.dialects import (
    Turn,
    args_json,
    get_dialect,
    output_tokens,
    pieces,
    reply_from_json,
    sse,
    wires,
    with_fields,
)
from harness.model import FrozenDict, Thinking


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


THINKING = Reply(
    text="Forking now.",
    calls=(ToolCall("fork", FrozenDict({"directive": "A"})),),
    thinking="The task splits in two; fork a worker for the first half.",
)


def _replayed(dialect: str, answer: dict[str, Any]) -> dict[str, Any]:
    """The next request of an agent that keeps the fake's answer whole: the user's turn,
    then the answer in request form (each provider's response shape as its request takes it)."""
    user_text = "Split the work."
    if dialect == "anthropic":
        turn = {"role": "assistant", "content": answer["content"]}
        return {
            "model": "m",
            "max_tokens": 8,
            "messages": [{"role": "user", "content": user_text}, turn],
        }
    if dialect == "openai":
        message = answer["choices"][0]["message"]
        turn = {
            k: message[k]
            for k in ("role", "content", "reasoning_content", "tool_calls")
            if k in message
        }
        return {"model": "m", "messages": [{"role": "user", "content": user_text}, turn]}
    if dialect == "openai-responses":
        items = [{k: v for k, v in item.items() if k != "status"} for item in answer["output"]]
        return {"model": "m", "input": [{"role": "user", "content": user_text}, *items]}
    assert dialect == "gemini"
    turn = answer["candidates"][0]["content"]
    return {"contents": [{"role": "user", "parts": [{"text": user_text}]}, turn]}


@pytest.mark.parametrize("dialect", sorted(wires()))
def test_thinking_comes_back_as_the_played_message_in_every_dialect(dialect: str) -> None:
    # the fake's answer with thinking, kept whole by the agent, reads back as the message
    # the checks expect the parent to replay: its thinking (signed where the provider
    # signs), text and calls with the fake's ids
    wire = wires()[dialect]
    body = {"model": "m", "messages": [], "contents": [], "input": []}
    answer = orjson.loads(wire.message(Turn(THINKING, "m", 3, 10, body)))
    history = get_dialect(dialect).parse(_replayed(dialect, answer)).request.history
    played = wire.played(THINKING, 3)
    assert history[-1] == played
    (thinking,) = [p for p in played.parts if isinstance(p, Thinking)]
    assert thinking.text == THINKING.thinking
    signed = [s for p in played.parts if (s := getattr(p, "signature", None)) is not None]
    # every provider signs its thinking but DeepSeek's reasoning_content on this wire
    assert signed == ([] if dialect == "openai" else [wire.signature(3)])


def test_a_reply_with_thinking_round_trips_through_its_json() -> None:
    assert reply_from_json(THINKING.to_json()) == THINKING
    assert THINKING.to_json()["thinking"] == THINKING.thinking


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
