import dataclasses

import pytest

from harness.model import FunctionCall, FunctionResponse, Image, Message, Text, Thinking, freeze


def test_message_views() -> None:
    call = FunctionCall("search", freeze({"q": "x"}), id="c1")
    message = Message("model", (Thinking("hmm", signature="s"), Text("a"), call, Text("b")))
    assert message.function_calls == (call,)
    assert message.text == "ab"
    reply = Message("user", (FunctionResponse("search", "ok", id="c1"),))
    assert reply.function_responses[0].id == "c1"


def test_values_are_immutable() -> None:
    message = Message("user", (Text("hi"),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.role = "model"  # type: ignore[misc]


@pytest.mark.parametrize("kwargs", [{}, {"data": "AA==", "url": "https://x/y.png"}])
def test_image_needs_exactly_one_source(kwargs: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="exactly one of data or url"):
        Image(**kwargs)
