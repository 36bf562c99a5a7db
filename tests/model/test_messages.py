import dataclasses

import pytest

from harness.model import (
    Extra,
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Opaque,
    Text,
    Thinking,
    freeze,
)


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


def test_an_opaque_part_is_its_own_dialects_block_and_text_to_another() -> None:
    part = Opaque("document", freeze({"type": "document", "title": "a"}), "anthropic")
    assert part.own_block("anthropic") == {"type": "document", "title": "a"}
    assert part.own_block("openai") is None
    assert part.as_text == '{"type":"document","title":"a"}'


def test_a_message_read_from_a_body_keeps_its_source_while_it_is_what_was_read() -> None:
    item = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    read = Message.read("openai", (item,), "user", (Text("hi"),))
    assert read.kept("openai") == (b'{"role":"user","content":[{"type":"text","text":"hi"}]}',)
    assert read.kept("anthropic") is None  # another dialect's items are not its own
    assert read == Message("user", (Text("hi"),))  # equality ignores the source
    assert repr(read) == repr(Message("user", (Text("hi"),)))
    changed = dataclasses.replace(read, parts=(Text("hello"),))
    assert changed.source is read.source
    assert changed.kept("openai") is None  # its parts are no longer those read
    assert dataclasses.replace(read, role="system").kept("openai") is None
    assert Message("user", (Text("hi"),)).kept("openai") is None


def test_an_extra_is_its_own_dialects_fields_only() -> None:
    extra = Extra("anthropic", freeze({"caller": {"type": "direct"}}))
    call = FunctionCall("f", None, "c1", extra=extra)
    assert extra.of("anthropic") == {"caller": {"type": "direct"}}
    assert extra.of("gemini") == {}
    assert call != FunctionCall("f", None, "c1")  # fields a dialect sent are content
