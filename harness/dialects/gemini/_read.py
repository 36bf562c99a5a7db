"""A Gemini body read into the neutral model: the system instruction's texts, the function
declarations, the settings, and each content a message (``user`` or ``model``) with the
content as sent as its ``Message.source``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Message, Preset, Request
from ._facts import NAME
from ._head import kept_head, read_tools, system_blocks
from ._parts import part
from ._prefix import role, segments
from ._settings import read_settings

__all__ = ["read_request"]


def read_request(body: Mapping[str, Any]) -> Request:
    """The body in the neutral model; unknown fields are kept in ``Settings.extra``."""
    segments(body)  # the envelope, checked
    tools, other_tools = read_tools(body.get("tools"))
    system = system_blocks(body.get("systemInstruction"))
    settings = read_settings(body, other_tools).with_extra(NAME, kept_head(body, system, tools))
    preset = Preset(system=system, tools=tools, settings=settings)
    history = tuple(_message(c, f"contents[{k}]") for k, c in enumerate(body["contents"]))
    return Request(preset=preset, history=history)


def _message(content: dict[str, Any], path: str) -> Message:
    """A contents entry (its envelope checked by ``segments``), with it as its source."""
    parts = tuple(part(p, f"{path}.parts[{i}]") for i, p in enumerate(content["parts"]))
    return Message.read(NAME, (content,), role(content, path), parts)
