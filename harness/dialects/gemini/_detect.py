"""How strongly a body looks like a Gemini one: features only its bodies have."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["detect"]

_DETECT_WINDOW: Final = 8
"""How many leading ``contents`` entries detect() looks into for call/response parts."""


def detect(body: Mapping[str, Any]) -> int:
    """Score gemini-only features: ``contents``, gemini config fields, role ``model``, and
    call/response parts near the start of the history. Never raises."""
    if not isinstance(body, Mapping) or not isinstance(body.get("contents"), list):
        return 0
    score = 1 + sum(key in body for key in ("systemInstruction", "generationConfig", "toolConfig"))
    saw_model = False
    for content in body["contents"][:_DETECT_WINDOW]:
        if not isinstance(content, dict):
            continue
        saw_model = saw_model or content.get("role") == "model"
        parts = content.get("parts")
        if isinstance(parts, list):
            score += sum(
                isinstance(p, dict) and ("functionCall" in p or "functionResponse" in p)
                for p in parts
            )
    return score + saw_model
