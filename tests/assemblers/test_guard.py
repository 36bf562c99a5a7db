from harness.assemblers import DEFAULT_WORDING, Wording, in_fork_child, refusal
from harness.model import FunctionCall, FunctionResponse, Message, Text, freeze

PLAIN = (Message("user", (Text("hi"),)), Message("model", (Text("hello"),)))


def test_plain_history_is_not_a_fork_child() -> None:
    assert not in_fork_child(PLAIN)
    assert not in_fork_child(())


def test_boilerplate_tag_in_any_text_part_marks_a_fork_child() -> None:
    tagged = Message("user", (Text("before"), Text("x <fork-boilerplate> y")))
    assert in_fork_child((*PLAIN, tagged))
    assert in_fork_child((Message("model", (Text("<fork-boilerplate>"),)),))


def test_only_text_parts_count() -> None:
    response = FunctionResponse("read", "<fork-boilerplate>", id="1")
    history = (Message("user", (response, Text("plain"))),)
    assert not in_fork_child(history)


def test_the_tag_follows_the_wording() -> None:
    history = (Message("user", (Text("<worker>\nrules\n</worker>"),)),)
    assert in_fork_child(history, wording=Wording(boilerplate_tag="worker"))
    assert not in_fork_child(history)


def test_refusal_answers_the_fork_call_with_an_error() -> None:
    call = FunctionCall("agent", freeze({"directive": "again"}), id="c9")
    assert refusal(call) == FunctionResponse(
        "agent", DEFAULT_WORDING.recursion_error, id="c9", is_error=True
    )
