"""OpenAI Responses continuations: previous_response_id (_continue)."""

from __future__ import annotations

import pytest

from harness.dialects.openai import DIALECT as OPENAI_CHAT
from harness.dialects.openai_responses import DIALECT
from harness.model import (
    FunctionCall,
    Message,
    Text,
    freeze,
)
from harness.prefix import locate, prefix_stream


def test_a_continuation_names_its_stored_response_and_expands_ahead_of_its_input() -> None:
    parent = {"instructions": "S", "input": [{"role": "user", "content": "hi"}]}
    answer = Message("model", (FunctionCall("fork", freeze({}), id="c"),))
    child = {
        "instructions": "S",
        "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "c", "output": "forked"}],
    }
    assert DIALECT.continued(child) == "resp_1"
    assert DIALECT.continued(parent) is None
    expanded = DIALECT.expand(child, parent, [answer])
    assert "previous_response_id" not in expanded
    call = {"type": "function_call", "call_id": "c", "name": "fork", "arguments": "{}"}
    assert expanded["input"] == [*parent["input"], call, *child["input"]]
    assert expanded["instructions"] == "S"  # the child's own: not inherited by the provider
    assert DIALECT.expand({"input": "go"}, {"input": "hi"}, [])["input"] == [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "go"},
    ]


def test_other_dialects_have_no_continuations() -> None:
    assert OPENAI_CHAT.continued({"messages": [], "previous_response_id": "r"}) is None
    with pytest.raises(NotImplementedError):
        OPENAI_CHAT.expand({}, {}, [])


def test_a_string_input_parent_is_a_prefix_of_its_continuation() -> None:
    parent = {"instructions": "S", "input": "Fix the test."}
    answer = Message("model", (Text("On it."),))
    child = {"instructions": "S", "previous_response_id": "resp_1", "input": "Go on."}
    expanded = DIALECT.parse(DIALECT.expand(child, parent, [answer]))
    assert locate(prefix_stream(DIALECT.parse(parent)), prefix_stream(expanded)) is None
