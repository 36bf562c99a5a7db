"""The neutral model rendered as a OpenAI chat completions body (_render)."""

from __future__ import annotations

from dataclasses import replace

import orjson

from harness.dialects.openai import DIALECT
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    freeze,
)

from .support import frozen, render_dict


def test_render_maps_what_openai_cannot_express() -> None:
    request = Request(
        preset=Preset(settings=Settings(top_k=40, thinking=ThinkingConfig(budget_tokens=2048))),
        history=(
            Message("user", (Image(mime_type="image/jpeg", data="AAAA"), Text("look"))),
            Message(
                "model",
                (
                    Thinking("opaque", redacted=True),
                    Thinking("plan", signature="sig"),
                    FunctionCall("f", freeze({"z": 1, "a": [2]})),
                ),
            ),
            Message("user", (FunctionResponse("f", freeze({"ok": True}), is_error=True),)),
        ),
    )
    assert DIALECT.render(request) == orjson.dumps(
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
                        {"type": "text", "text": "look"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "plan",
                    "tool_calls": [
                        {
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"z":1,"a":[2]}'},
                        }
                    ],
                },
                {"role": "tool", "content": '{"ok":true}'},
            ]
        }
    )


def test_extra_never_overrides_or_leaks_fields_render_owns() -> None:
    extra = frozen(
        {"openai": {"model": "x", "temperature": 1, "tools": {"f": {"strict": True}}, "seed": 1}}
    )
    request = Request(Preset(settings=Settings(model="m", extra=extra)))
    assert render_dict(request) == {"model": "m", "messages": [], "seed": 1}


def test_the_system_as_sent_renders_while_its_blocks_are_those_read() -> None:
    sent = [{"role": "developer", "content": [{"type": "text", "text": "Be brief."}]}]
    body = {"model": "m", "messages": [*sent, {"role": "user", "content": "hi"}]}
    request = DIALECT.parse(body).request
    assert request.preset.system == ("Be brief.",)
    assert orjson.loads(DIALECT.render(request))["messages"][:1] == sent
    other = replace(request, preset=replace(request.preset, system=("Be terse.",)))
    assert orjson.loads(DIALECT.render(other))["messages"][:1] == [
        {"role": "system", "content": "Be terse."}
    ]
