"""An Anthropic body read into the neutral model.

user / assistant / system messages are ``user`` / ``model`` / ``system`` messages, each
with its body message (without markers) as its ``Message.source``, so that it renders back
verbatim while its parts are those it was read as. Markers become
``Request.cache_breakpoints`` (``_markers``), any marker other than ``{"type":
"ephemeral"}`` (a ``ttl``) kept in ``Request.cache_control``, so that they render back where
they were.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import FrozenDict, Json, Message, Preset, Request, freeze
from ._facts import NAME
from ._head import kept_head, read_tools, system
from ._markers import EPHEMERAL, marked_blocks, unmarked_message
from ._parts import parts
from ._prefix import ROLES, message, messages
from ._settings import read_settings

__all__ = ["read_request"]


def read_request(body: Mapping[str, Any]) -> Request:
    """The body in the neutral model; ``DialectError`` names the path of a bad part."""
    found = messages(body)
    texts, tools = system(body), read_tools(body)
    settings = read_settings(body).with_extra(NAME, kept_head(body, texts, tools))
    preset = Preset(system=texts, tools=tuple(tool for tool, _ in tools), settings=settings)
    names: list[str] = []
    controls: dict[str, Json] = {}
    for _, _, marker, name in marked_blocks(body):
        names.append(name)
        if marker != EPHEMERAL:
            controls[name] = freeze(marker)
    return Request(preset, _history(found), tuple(names), FrozenDict(controls))


def _history(items: list[Any]) -> tuple[Message, ...]:
    names: dict[str, str] = {}  # call id -> function name, for the tool_result blocks
    out = []
    for k, item in enumerate(items):
        role, content = message(item, k)
        unmarked = unmarked_message(item, content, k)
        read = parts(unmarked["content"], k, names)
        out.append(Message.read(NAME, (unmarked,), ROLES[role], read))
    return tuple(out)
