"""Neutral replies: what a script answers, and how records write and read them back."""

from __future__ import annotations

import pytest

from harness.dialects import Reply, ToolCall, reply_from_json
from harness.model import FrozenDict, FunctionCall, Text, freeze


def test_a_reply_needs_text_or_calls() -> None:
    with pytest.raises(ValueError, match="text, calls, or both"):
        Reply()


def test_round_trip_keeps_argument_order() -> None:
    args = freeze({"z": 1, "a": [1, {"b": None}]})
    assert isinstance(args, FrozenDict)
    reply = Reply("hi", (ToolCall("fork", args),))
    data = reply.to_json()
    assert data == {
        "text": "hi",
        "call": [{"name": "fork", "args": {"z": 1, "a": [1, {"b": None}]}}],
    }
    assert list(data["call"][0]["args"]) == ["z", "a"]
    assert reply_from_json(data) == reply
    assert reply_from_json({"text": "only"}) == Reply("only")


@pytest.mark.parametrize(
    "bad",
    [[], {}, {"text": 1}, {"call": {}}, {"call": [{"name": "f"}]}, {"call": [{"args": {}}]}],
)
def test_bad_reply_json(bad: object) -> None:
    with pytest.raises(ValueError, match=r"reply|call"):
        reply_from_json(bad)


def test_the_model_message_of_a_reply() -> None:
    args = freeze({"d": "A"})
    assert isinstance(args, FrozenDict)
    reply = Reply("Forking.", (ToolCall("fork", args), ToolCall("fork", args)))
    message = reply.message(["call_1"])
    assert message.role == "model"
    assert message.parts[0] == Text("Forking.")
    assert [(c.name, c.args, c.id) for c in message.function_calls] == [
        ("fork", args, "call_1"),
        ("fork", args, None),
    ]
    assert Reply(calls=reply.calls).message().parts == (
        FunctionCall("fork", args),
        FunctionCall("fork", args),
    )
