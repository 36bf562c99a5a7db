"""A OpenAI Responses body read into the neutral model (_read)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.openai_responses import DIALECT
from harness.model import (
    Extra,
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Thinking,
    freeze,
)

from .support import parse, render_dict


def test_a_call_into_a_namespace_keeps_it() -> None:
    item = {
        "type": "function_call",
        "call_id": "c",
        "name": "spawn",
        "namespace": "agents",
        "arguments": "{}",
    }
    call = parse({"input": [item]}).history[0].parts[0]
    assert call == FunctionCall(
        "spawn",
        freeze({}),
        id="c",
        extra=Extra("openai-responses", freeze({"namespace": "agents"})),
    )
    fresh = Request(Preset(), (Message("model", (call,)),))
    assert render_dict(fresh)["input"] == [item]


def test_redacted_reasoning_reads_back_as_redacted() -> None:
    item = {"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": "E"}
    body = {"input": [{"role": "user", "content": "hi"}, item]}
    assert parse(body).history[1].parts == (Thinking("", "E", redacted=True),)


@pytest.mark.parametrize(
    ("item", "path"),
    [
        ({"type": "function_call", "call_id": "c", "arguments": "{}"}, "input[0].name"),
        ({"type": "function_call", "call_id": "c", "name": "f"}, "input[0].arguments"),
        ({"type": "function_call_output", "call_id": "c", "output": 3}, "input[0].output"),
        ({"type": "reasoning", "summary": "x"}, "input[0].summary"),
        ({"role": "user", "content": [{"type": "input_text"}]}, "input[0].content[0].text"),
        ({"role": "user", "content": [3]}, "input[0].content[0]"),
    ],
)
def test_malformed_items_raise_from_to_request(item: Any, path: str) -> None:
    with pytest.raises(DialectError) as caught:
        parse({"input": [item]})
    assert caught.value.path == path


def test_an_output_takes_the_name_of_the_call_before_it_and_each_run_is_its_source() -> None:
    body = {
        "model": "m",
        "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}"},
            {"role": "developer", "content": [{"type": "input_text", "text": "note"}]},
            {"type": "function_call_output", "call_id": "c1", "output": "done"},
        ],
    }
    history = parse(body).history
    assert [m.role for m in history] == ["user", "model", "system", "user"]
    assert history[-1].parts == (FunctionResponse("read", "done", "c1"),)
    assert [DIALECT.read_segments(m) for m in history] == [1, 1, 1, 1]
