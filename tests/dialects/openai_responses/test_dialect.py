"""The OpenAI Responses dialect as a whole: realistic bodies, round trips, any JSON refused
with a DialectError."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects.openai_responses import DIALECT
from harness.model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Message,
    Request,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
)
from harness.strategies import requests

from ..mutations import mutated_bodies, reads_or_refuses
from .support import SHELL, codex_like, parse


def test_realistic_body_to_exact_request() -> None:
    request = parse(codex_like())
    assert request.preset.system == ("You are a coding agent.", "Sandbox: workspace-write.")
    assert request.preset.tools[0] == Tool("shell", "Run a command.", freeze(SHELL))
    assert request.preset.tools[1] == Tool("web_search", parameters=freeze({"type": "web_search"}))
    assert [m.role for m in request.history] == ["user", "model", "user"]
    assert request.history[0].parts == (Text("Fix the failing test."),)
    assert request.history[1].parts == (
        Thinking("Look at the test first.", "gAAAA-opaque"),
        Text("Reading it."),
        FunctionCall("shell", freeze({"command": ["pytest", "-q"]}), id="call_1"),
    )
    assert request.history[2].parts == (
        FunctionResponse("shell", "1 failed", id="call_1"),
        Text("Go on."),
    )
    settings_ = request.preset.settings
    assert settings_.model == "gpt-5.6"
    assert settings_.thinking == ThinkingConfig(effort="high")
    assert settings_.tool_choice == ToolChoice("auto")
    own = settings_.extra["openai-responses"]
    assert own["prompt_cache_key"] == "conversation-1"
    assert own["reasoning"] == FrozenDict({"summary": "auto"})
    assert own["tools"] == FrozenDict({"shell": FrozenDict({"strict": False})})
    assert request.cache_breakpoints == ("input[6]",)


def test_realistic_body_segments_in_cache_order_without_markers() -> None:
    parsed = DIALECT.parse(codex_like())
    names = [s.name for s in parsed.segments]
    assert names == ["instructions", "tools[0]", "tools[1]", *(f"input[{k}]" for k in range(7))]
    last = parsed.segments[-1].value
    assert last["content"] == [{"type": "input_text", "text": "Go on."}]
    assert DIALECT.families(parsed.segments) == (
        "system",
        "tools",
        "tools",
        "system",  # the leading developer item is system, though it comes after the tools
        *("history",) * 6,
    )


def test_realistic_body_renders_back_as_sent() -> None:
    body = codex_like()
    assert orjson.loads(DIALECT.render(parse(body))) == body
    assert DIALECT.render(parse(body)) == DIALECT.render(
        parse(orjson.loads(DIALECT.render(parse(body))))
    )


@settings(max_examples=200, deadline=None)
@given(requests())
def test_render_parse_render_is_byte_identical(request: Request) -> None:
    first = DIALECT.render(request)
    parsed = DIALECT.parse(orjson.loads(first))
    again = DIALECT.render(parsed.request)
    assert again == first
    assert DIALECT.parse(orjson.loads(again)).request == parsed.request


@settings(max_examples=100, deadline=None)
@given(requests(), st.lists(st.text(max_size=10), max_size=2))
def test_in_history_system_messages_round_trip(request: Request, notes: list[str]) -> None:
    """Leading neutral system messages fold into the system blocks; later ones stay."""
    extra = tuple(Message("system", (Text(n),)) for n in notes)
    shifted = Request(request.preset, (*extra, *request.history, *extra))
    first = DIALECT.render(shifted)
    parsed = parse(orjson.loads(first))
    assert parsed.preset.system == (*request.preset.system, *notes)
    assert DIALECT.render(parsed) == first


@settings(max_examples=300, deadline=None)
@given(mutated_bodies("openai-responses"))
def test_a_value_of_another_type_anywhere_is_a_dialect_error(body: Any) -> None:
    """A role that is a list, a content that is a number, a tool that is a string, a
    setting of the wrong type...: each reading method returns or raises DialectError."""
    reads_or_refuses(DIALECT, body)
