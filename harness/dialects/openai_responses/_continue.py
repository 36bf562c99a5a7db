"""Continuations: a body with ``previous_response_id`` continues a response stored on the
server, so its prefix is that response's input and output followed by this body's ``input``
(docs/dialects.md has what such a fork must send)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ...model import Message, Preset, Request
from ._prefix import envelope, items
from ._render import render

__all__ = ["continued", "expand"]


def continued(body: Mapping[str, Any]) -> str | None:
    """The stored response a body continues (``previous_response_id``), if any."""
    value = body.get("previous_response_id") if isinstance(body, Mapping) else None
    return value if isinstance(value, str) and value else None


def expand(
    body: Mapping[str, Any], before: Mapping[str, Any], answer: Sequence[Message]
) -> dict[str, Any]:
    """The body as the provider reads a continuation: the input of the request it continues
    (``before``, itself expanded), the answer to it (``answer``, rendered as output items)
    and this body's own ``input``, without ``previous_response_id``. Instructions and tools
    are not inherited: they are the body's own, as the provider uses them."""
    stored = items(envelope(before))
    output = orjson.loads(render(Request(Preset(), tuple(answer))))["input"]
    own = items(envelope(body))
    expanded = {k: v for k, v in body.items() if k != "previous_response_id"}
    expanded["input"] = [*stored, *output, *own]
    return expanded
