"""Stored answers (harness/capture/_stored.py): a body continuing one is read with the input
and the answer it continues; anything else is read as sent."""

from __future__ import annotations

from harness.capture import Reply, ToolCall
from harness.capture._stored import Continued, Stored
from harness.dialects import get_dialect
from harness.model import FrozenDict, freeze

RESPONSES = get_dialect("openai-responses")
CHAT = get_dialect("openai")
ARGS = freeze({"directive": "A"})
assert isinstance(ARGS, FrozenDict)
ANSWER = Reply("Forking.", (ToolCall("fork", ARGS),)).message(["call_1"])
FIRST = {"model": "m", "input": [{"role": "user", "content": "hi"}]}


def test_a_body_that_continues_nothing_is_read_as_sent() -> None:
    stored = Stored()
    assert stored.read(RESPONSES, FIRST) == (FIRST, None)
    chat = {"messages": [], "previous_response_id": "resp_1"}
    assert stored.read(CHAT, chat) == (chat, None)


def test_a_continuation_is_read_with_what_it_continues() -> None:
    stored = Stored()
    stored.keep("resp_1", FIRST, ANSWER)
    output = {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
    second = {"model": "m", "previous_response_id": "resp_1", "input": [output]}
    read, note = stored.read(RESPONSES, second)
    assert note is None
    assert "previous_response_id" not in read
    request = RESPONSES.parse(read).request
    assert [m.role for m in request.history] == ["user", "model", "user"]
    assert request.history[1].function_calls[0].id == "call_1"
    stored.keep("resp_2", read, Reply("Done.").message())
    third = {"model": "m", "previous_response_id": "resp_2", "input": "thanks"}
    chained = RESPONSES.parse(stored.read(RESPONSES, third)[0]).request
    assert [m.role for m in chained.history] == ["user", "model", "user", "model", "user"]
    assert chained.history[-1].text == "thanks"


def test_an_unknown_response_is_read_as_its_own_input_with_a_note() -> None:
    stored = Stored()
    stored.keep(None, FIRST, ANSWER)  # a wire that stores nothing
    body = {"model": "m", "previous_response_id": "resp_elsewhere", "input": "hi"}
    read, note = stored.read(RESPONSES, body)
    assert read == body
    assert note == (
        "the body continues 'resp_elsewhere', which is no answer of this fake; it is read as"
        " its own input only"
    )


def test_a_stored_loader_is_called_only_when_a_continuation_is_read() -> None:
    stored, calls = Stored(), []

    def load() -> dict[str, object]:
        calls.append(1)
        return FIRST

    stored.keep("resp_1", load, ANSWER)
    second = {"model": "m", "previous_response_id": "resp_1", "input": "next"}
    found = stored.find(RESPONSES, second)
    assert isinstance(found, Continued)
    assert found.answer == ANSWER
    assert calls == []
    read, note = stored.read(RESPONSES, second)
    assert note is None
    assert calls == [1]
    assert [m.role for m in RESPONSES.parse(read).request.history] == ["user", "model", "user"]
    assert stored.find(RESPONSES, FIRST) is None
    assert isinstance(stored.find(RESPONSES, {**second, "previous_response_id": "x"}), str)
