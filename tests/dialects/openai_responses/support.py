"""Bodies and helpers the OpenAI Responses dialect's tests share."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import strategies as st

from harness.dialects.openai_responses import DIALECT
from harness.model import (
    Extra,
    FrozenDict,
    Request,
)

SHELL = {"type": "object", "properties": {"command": {"type": "array"}}, "required": ["command"]}


BREAK = {"mode": "explicit"}


def codex_like() -> dict[str, Any]:
    """A body of the shape an agent runtime sends: instructions, developer and user context
    items, reasoning, a call and its output, explicit breakpoints, routing key."""
    return {
        "model": "gpt-5.6",
        "instructions": "You are a coding agent.",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Sandbox: workspace-write."}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Fix the failing test."}],
            },
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Look at the test first."}],
                "encrypted_content": "gAAAA-opaque",
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Reading it.", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "shell",
                "arguments": '{"command":["pytest","-q"]}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "1 failed"},
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Go on.", "prompt_cache_breakpoint": BREAK}
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "name": "shell",
                "description": "Run a command.",
                "parameters": SHELL,
                "strict": False,
            },
            {"type": "web_search"},
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "reasoning": {"effort": "high", "summary": "auto"},
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "conversation-1",
        "text": {"verbosity": "low"},
    }


def parse(body: dict[str, Any]) -> Request:
    return DIALECT.parse(body).request


def render_dict(request: Request) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(DIALECT.render(request))
    return value


def custom() -> Extra:
    return Extra("openai-responses", FrozenDict({"type": "custom"}))


JUNK_KEYS = st.sampled_from(["type", "role", "content", "input", "summary", "call_id", "output"])


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(JUNK_KEYS, st.text(max_size=5)), inner, max_size=4),
    ),
    max_leaves=20,
)
