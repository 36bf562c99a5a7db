"""How strongly a body looks like a chat completions one: features only its bodies have."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["detect"]

_DETECT_FIELDS: Final = (
    "response_format",
    "max_completion_tokens",
    "reasoning_effort",
    "stream_options",
)
_DETECT_SAMPLE: Final = 64
"""Messages looked at for detection: enough to see every role, cheap on long histories."""


def detect(body: Mapping[str, Any]) -> int:
    """Count the features only chat completions bodies have; 0 without ``messages``. Never
    raises."""
    if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
        return 0
    found = {key for key in _DETECT_FIELDS if key in body}
    tools = body.get("tools")
    if isinstance(tools, list) and any(
        isinstance(t, dict) and t.get("type") == "function" and "function" in t for t in tools
    ):
        found.add("function tools")
    for message in body["messages"][:_DETECT_SAMPLE]:
        if isinstance(message, dict):
            found.update(_message_features(message))
    return len(found)


def _message_features(message: dict[str, Any]) -> set[str]:
    """The chat-completions-only features of one message (roles, call fields, image parts)."""
    found: set[str] = {key for key in ("tool_calls", "tool_call_id") if key in message}
    role = message.get("role")
    if isinstance(role, str) and role in ("system", "developer", "tool"):
        found.add(role)
    content = message.get("content")
    if isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") == "image_url" for p in content
    ):
        found.add("image_url")
    return found
