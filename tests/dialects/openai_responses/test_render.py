"""The neutral model rendered as a OpenAI Responses body (_render)."""

from __future__ import annotations

from dataclasses import replace

import orjson

from harness.dialects.openai_responses import DIALECT
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    OutputSchema,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
)

from .support import SHELL, custom, render_dict


def test_render_maps_every_part() -> None:
    request = Request(
        Preset(
            system=("Be brief.", "Repository rules."),
            tools=(Tool("read_file", "Read a file.", freeze(SHELL)),),
            settings=Settings(
                model="m-1",
                temperature=0.2,
                max_output_tokens=512,
                stop=("END",),
                top_k=3,
                thinking=ThinkingConfig(effort="low"),
                tool_choice=ToolChoice("tool", ("read_file",)),
                output_schema=OutputSchema(freeze({"type": "object"})),
            ),
        ),
        (
            Message(
                "user", (Text("Look:"), Image(mime_type="image/png", data="AAA", detail="low"))
            ),
            Message(
                "model",
                (
                    Thinking("plan", "sig"),
                    Thinking("hidden", redacted=True),
                    Text("On it."),
                    FunctionCall("read_file", freeze({"path": "a"}), id="c1"),
                    FunctionCall("patch", "*** raw", id="c2", extra=custom()),
                ),
            ),
            Message(
                "user",
                (
                    FunctionResponse("read_file", freeze({"ok": True}), id="c1"),
                    FunctionResponse("patch", "done", id="c2", extra=custom()),
                ),
            ),
        ),
    )
    assert render_dict(request) == {
        "model": "m-1",
        "instructions": "Be brief.",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Repository rules."}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Look:"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,AAA",
                        "detail": "low",
                    },
                ],
            },
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "plan"}],
                "encrypted_content": "sig",
            },
            {"type": "reasoning", "summary": [], "encrypted_content": "hidden"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "On it."}],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "read_file",
                "arguments": '{"path":"a"}',
            },
            {"type": "custom_tool_call", "call_id": "c2", "name": "patch", "input": "*** raw"},
            {"type": "function_call_output", "call_id": "c1", "output": '{"ok":true}'},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "done"},
        ],
        "tools": [
            {
                "type": "function",
                "name": "read_file",
                "description": "Read a file.",
                "parameters": SHELL,
            }
        ],
        "tool_choice": {"type": "function", "name": "read_file"},
        "text": {"format": {"type": "json_schema", "name": "output", "schema": {"type": "object"}}},
        "reasoning": {"effort": "low"},
        "temperature": 0.2,
        "max_output_tokens": 512,
    }


def test_extra_never_overrides_fields_render_owns() -> None:
    request = Request(
        Preset(
            settings=Settings(
                model="m", extra=freeze({"openai-responses": {"model": "x", "seed": 1}})
            )
        )
    )
    assert render_dict(request) == {"model": "m", "input": [], "seed": 1}


def test_the_system_as_sent_renders_while_its_blocks_are_those_read() -> None:
    sent = [{"role": "system", "content": [{"type": "input_text", "text": "Be brief."}]}]
    body = {"model": "m", "instructions": "Hi.", "input": [*sent, {"role": "user", "content": "x"}]}
    request = DIALECT.parse(body).request
    assert request.preset.system == ("Hi.", "Be brief.")
    assert orjson.loads(DIALECT.render(request))["input"][:1] == sent
    other = replace(request, preset=replace(request.preset, system=("Hi.", "Be terse.")))
    assert orjson.loads(DIALECT.render(other))["input"][:1] == [
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "Be terse."}],
        }
    ]
