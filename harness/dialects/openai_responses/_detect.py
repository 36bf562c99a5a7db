"""How strongly a body looks like a Responses one: features only its bodies have."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["detect"]

_DETECT_FIELDS: Final = (
    *("instructions", "max_output_tokens", "previous_response_id", "store", "include"),
    *("truncation", "prompt_cache_options", "conversation"),
)
_DETECT_ITEMS: Final = frozenset(
    {"function_call", "function_call_output", "reasoning", "custom_tool_call"}
    | {"custom_tool_call_output", "input_text", "output_text", "input_image", "input_file"}
)
_DETECT_SAMPLE: Final = 64


def detect(body: Mapping[str, Any]) -> int:
    """Count the features only Responses bodies have; 0 without ``input``. Never raises."""
    if not isinstance(body, Mapping) or "messages" in body or "contents" in body:
        return 0
    items = body.get("input")
    if not isinstance(items, list | str):
        return 0
    found = {key for key in _DETECT_FIELDS if key in body}
    text = body.get("text")
    if isinstance(text, dict) and "format" in text:
        found.add("text.format")
    if isinstance(body.get("reasoning"), dict):
        found.add("reasoning")
    tools = body.get("tools")
    if isinstance(tools, list) and any(
        isinstance(t, dict) and t.get("type") == "function" and "name" in t for t in tools
    ):
        found.add("flat function tools")
    for item in items[:_DETECT_SAMPLE] if isinstance(items, list) else ():
        if isinstance(item, dict):
            found.update(_item_features(item))
    return max(len(found), 1)


def _item_features(item: dict[str, Any]) -> set[str]:
    """The Responses-only features of one item: its type, its content part types."""
    found: set[str] = set()
    kind = item.get("type")
    if isinstance(kind, str) and kind in _DETECT_ITEMS:
        found.add(kind)
    content = item.get("content")
    for part in content if isinstance(content, list) else ():
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(kind, str) and kind in _DETECT_ITEMS:
            found.add(kind)
    return found
