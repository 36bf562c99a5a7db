"""The neutral model rendered as a Anthropic messages body (_render)."""

from __future__ import annotations

from harness.model import (
    FrozenDict,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Settings,
    Text,
)

from .support import render_dict, user


def test_other_dialects_extra_is_not_rendered() -> None:
    extra = FrozenDict(
        {"openai": FrozenDict({"seed": 1}), "anthropic": FrozenDict({"stream": True})}
    )
    request = Request(Preset(settings=Settings(extra=extra)), (Message("user", (Text("a"),)),))
    assert render_dict(request) == {"stream": True, "messages": [user("a")]}


def test_function_responses_render_first_and_non_string_results_as_json_text() -> None:
    message = Message(
        "user",
        (
            Text("see"),
            FunctionResponse("f", FrozenDict({"b": 1, "a": [2]}), "c1"),
            FunctionResponse(
                "g", (FrozenDict({"type": "text", "text": "x"}),), "c2", is_error=True
            ),
        ),
    )
    (rendered,) = render_dict(Request(Preset(), (message,)))["messages"]
    assert rendered["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": '{"b":1,"a":[2]}'},
        {
            "type": "tool_result",
            "tool_use_id": "c2",
            "content": [{"type": "text", "text": "x"}],
            "is_error": True,
        },
        {"type": "text", "text": "see"},
    ]
