"""The neutral model rendered as a Gemini body: compact JSON in cache order
(systemInstruction, tools, toolConfig, contents), then generationConfig and the unknown
top-level fields kept in ``Settings.extra``.

A message renders from its source (the content it was read from) while its role and parts
are those it was read as, else from its parts; an in-history system message has no Gemini
form and becomes a user turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ...model import FrozenDict, Message, Request, dumps
from ._facts import NAME
from ._head import kept_declarations, render_system, render_tool
from ._parts import render_part
from ._settings import MERGED, render_config, render_tool_config

__all__ = ["render"]


def render(request: Request) -> bytes:
    """The compact body an implementation would POST for ``request``."""
    preset, settings = request.preset, request.preset.settings
    extra: Mapping[str, Any] = settings.extra.get(NAME, FrozenDict())
    body: dict[str, Any] = {}
    if preset.system:
        body["systemInstruction"] = render_system(preset.system, extra.get("systemInstruction"))
    tools = list(extra.get("tools", ()))
    if preset.tools:
        kept = kept_declarations(extra.get("declarations"))
        decls = [kept.get(t) or render_tool(t) for t in preset.tools]
        tools.insert(0, {"functionDeclarations": decls})
    if tools:
        body["tools"] = tools
    tool_config = render_tool_config(settings.tool_choice, extra.get("toolConfig", {}))
    if tool_config:
        body["toolConfig"] = tool_config
    body["contents"] = [_render_content(m) for m in request.history]
    config = render_config(settings, extra.get("generationConfig", {}))
    if config:
        body["generationConfig"] = config
    body.update((k, v) for k, v in extra.items() if k not in MERGED)
    return dumps(body)


def _render_content(message: Message) -> Any:
    """The message's contents entry: the one it was read from while it is what that was
    read as (``Message.kept``), else from its parts."""
    kept = message.kept(NAME)
    if kept is not None:
        return orjson.Fragment(kept[0])
    role = "model" if message.role == "model" else "user"
    return {"role": role, "parts": [render_part(p) for p in message.parts]}
