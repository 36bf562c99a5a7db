"""The requests a check uses (harness/capture/_observe.py): which records take part, and
the model turns rebuilt from recorded replies with the ids the fake gave."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest

from harness.capture import Observed, Reply, observe, reply_message
from harness.capture._observe import RECENT, observed
from harness.capture._stored import Stored
from harness.dialects import Turn, wires
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
    sent = orjson.loads(wires()[dialect].message(Turn(REPLY, "m", 7, 1, {})))
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


class _Listed:
    """Bodies read back from a list (``where`` is the index), counting the reads."""

    def __init__(self, bodies: list[dict[str, Any]]) -> None:
        self.bodies, self.fetched = bodies, 0

    def fetch(self, where: Any) -> tuple[bytes, Any]:
        self.fetched += 1
        return self.raw(where), self.bodies[where]

    def raw(self, where: Any) -> bytes:
        return orjson.dumps(self.bodies[where])


def test_a_chain_of_continuations_is_read_back_from_its_oldest_body_not_kept() -> None:
    first = {"model": "m", "input": [{"role": "user", "content": "turn 0"}]}
    bodies = [first] + [
        {"model": "m", "previous_response_id": f"resp_ph{i:06d}", "input": f"turn {i}"}
        for i in range(1, 30)
    ]
    source, stored = _Listed(bodies), Stored()
    used = []
    for i, body in enumerate(bodies):
        found = observed(
            i + 1,
            "openai-responses",
            orjson.dumps(body),
            body,
            reply=Reply(f"answer {i}"),
            nth=i + 1,
            stored=stored,
            bodies=source,
            where=i,
        )
        assert isinstance(found, Observed)
        used.append(found)
    assert source.fetched == 0  # each body was read once, as it came
    for i in reversed(range(30)):  # no longer kept: each read back from the chain's start
        history = used[i].history
        assert [m.text for m in history[::2]] == [f"turn {j}" for j in range(i + 1)]
        assert [m.text for m in history[1::2]] == [f"answer {j}" for j in range(i)]
        assert used[i].size == len(history)
        assert used[i].body == orjson.dumps(bodies[i])  # as sent
    source.fetched = 0
    for u in used:  # in order, each continues the one just read: one read each
        assert u.history[-1].text == f"turn {u.seq - 1}"
    assert source.fetched == 30 - RECENT  # the first few were the last read back: kept


def test_records_are_observed_without_keeping_their_neutral_requests() -> None:
    rt = Runtime()
    rt.send([ASK], REPLY)
    rt.send([ASK], text("again"))
    used, _ = observe(rt.records)
    assert [u.body for u in used] == [r.body for r in rt.records]
    assert [u.request for u in used] == [r.parse().request for r in rt.records]
    assert [(u.size, u.has_model, u.has_tools) for u in used] == [(1, False, True)] * 2
