"""OpenAI Responses content parts both ways (_parts)."""

from __future__ import annotations

from harness.model import (
    Message,
    Opaque,
    Preset,
    Request,
    freeze,
)

from .support import parse, render_dict


def test_unknown_items_and_parts_are_opaque_and_render_back_verbatim() -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    ref = {"type": "item_reference", "id": "msg_0"}
    file = {"type": "input_file", "file_id": "file-1"}
    body = {
        "input": [
            {"role": "user", "content": [file, {"type": "input_image", "file_id": "file-2"}]},
            search,
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": "no"}],
            },
            ref,
            {"type": "shell_call_output", "call_id": "s1", "output": []},
        ]
    }
    request = parse(body)
    user, model, tail = request.history
    assert [type(p) for p in user.parts] == [Opaque, Opaque]
    assert [p.kind for p in model.parts if isinstance(p, Opaque)] == [
        "web_search_call",
        "refusal",
        "item_reference",
    ]
    assert tail.parts == (
        Opaque("shell_call_output", freeze(body["input"][4]), "openai-responses"),
    )
    fresh = Request(request.preset, tuple(Message(m.role, m.parts) for m in request.history))
    assert render_dict(fresh)["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [file, {"type": "input_image", "file_id": "file-2"}],
        },
        search,
        {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]},
        ref,
        body["input"][4],
    ]


def test_other_dialects_opaque_parts_render_as_text() -> None:
    part = Opaque("document", freeze({"type": "document", "source": {}}), "anthropic")
    body = render_dict(Request(Preset(), (Message("user", (part,)),)))
    assert body["input"][0]["content"] == [{"type": "input_text", "text": part.as_text}]
