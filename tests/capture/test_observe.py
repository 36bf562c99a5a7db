"""The requests a check uses (harness/capture/_observe.py): which records take part, and
the model turns rebuilt from recorded replies with the ids the fake gave."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from harness.capture import Reply, observe, reply_message
from harness.capture._server import WIRES
from harness.capture._wire import Turn
from harness.model import FunctionCall, Message, Text

from .simulate import ASK, Runtime, call, calls, text

REPLY = calls(call("fork", directive="A"), call("read_file", path="x"), text="Forking.")


@pytest.mark.parametrize(
    ("dialect", "ids"),
    [
        ("openai", ("call_ph000007_0", "call_ph000007_1")),
        ("openai-responses", ("call_ph000007_0", "call_ph000007_1")),
        ("anthropic", ("toolu_ph000007_0", "toolu_ph000007_1")),
        ("gemini", (None, None)),
    ],
)
def test_reply_message_uses_the_fakes_call_ids(dialect: str, ids: tuple[str | None, ...]) -> None:
    message = reply_message(dialect, REPLY, 7)
    assert message.role == "model"
    assert message.parts[0] == Text("Forking.")
    assert tuple(c.id for c in message.function_calls) == ids
    assert [c.name for c in message.function_calls] == ["fork", "read_file"]
    assert message.function_calls[0].args == {"directive": "A"}


@pytest.mark.parametrize("dialect", ["openai", "openai-responses", "anthropic"])
def test_the_ids_are_the_ones_the_wire_sends(dialect: str) -> None:
    sent = orjson.loads(WIRES[dialect].message(Turn(REPLY, "m", 7, 1, {})))
    if dialect == "openai":
        wire_ids = [c["id"] for c in sent["choices"][0]["message"]["tool_calls"]]
    elif dialect == "openai-responses":
        wire_ids = [i["call_id"] for i in sent["output"] if i["type"] == "function_call"]
    else:
        wire_ids = [b["id"] for b in sent["content"] if b["type"] == "tool_use"]
    assert wire_ids == [c.id for c in reply_message(dialect, REPLY, 7).function_calls]


def test_without_nth_calls_have_no_id() -> None:
    message = reply_message("openai", Reply(calls=REPLY.calls), None)
    assert message == Message(
        "model",
        tuple(FunctionCall(c.name, c.args) for c in REPLY.calls),
    )


def test_observe_keeps_answered_model_calls_and_says_why_others_are_left_out() -> None:
    rt = Runtime()
    rt.send([ASK], text("ok"))
    rt.send([ASK], text("refused"), status=400)
    rt.records.append(replace(rt.records[0], seq=3, reply=None))  # e.g. a token count
    rt.records.append(replace(rt.records[0], seq=4, json={"messages": 3}))
    rt.records.append(replace(rt.records[0], seq=5, json=None))
    used, ignored = observe(rt.records)
    assert [u.seq for u in used] == [1]
    assert used[0].history == (ASK,)
    assert used[0].reply == text("ok")
    assert [(i.seq, i.reason.split(" (")[0]) for i in ignored] == [
        (2, "refused with status 400"),
        (4, "the openai dialect cannot read the body"),
        (5, "the body is not JSON"),
    ]


def test_a_record_of_a_dialect_that_is_not_installed_is_left_out_with_the_reason() -> None:
    rt = Runtime()
    rt.send([ASK], text("ok"))
    used, ignored = observe([replace(rt.records[0], dialect="openai-not-installed")])
    assert used == ()
    assert [(i.seq, i.kind, i.reason) for i in ignored] == [
        (1, "unreadable", "no openai-not-installed dialect is installed to read the body")
    ]
