"""How strongly a body looks like an Anthropic one: features only its bodies have."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from ._fields import dicts
from ._markers import MARKER
from ._prefix import ROLES

__all__ = ["detect"]

_DETECT_KEYS: Final = ("system", "thinking", "stop_sequences", "top_k")
_DETECT_BLOCKS: Final = ("tool_use", "tool_result", "thinking", "redacted_thinking")
_DETECT_SAMPLE = 64
"""Messages looked at for detection: enough to see every role, cheap on long histories."""


def detect(body: Mapping[str, Any]) -> int:
    """The number of Anthropic-only features; 0 without ``messages`` or with a message of
    another role. Never raises."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return 0
    features = {key for key in _DETECT_KEYS if key in body}
    for tool in dicts(body.get("tools")):
        features.update(key for key in ("input_schema", MARKER) if key in tool)
    if any(MARKER in block for block in dicts(body.get("system"))):
        features.add(MARKER)
    for message in body["messages"][:_DETECT_SAMPLE]:
        role = message.get("role") if isinstance(message, dict) else None
        if not isinstance(role, str) or role not in ROLES:
            return 0
        for block in dicts(message.get("content")):
            features.update(_block_features(block))
    return len(features)


def _block_features(block: dict[str, Any]) -> Iterator[str]:
    """What in a content block only Anthropic bodies have."""
    kind = block.get("type")
    if kind in _DETECT_BLOCKS:
        yield f"block:{kind}"
    if kind == "image" and "source" in block:
        yield "block:image.source"
    if MARKER in block:
        yield MARKER
