"""The markers suite items carry, so that ``-m`` selects them; light, for the plugin to
register them at start-up without loading the suite."""

from __future__ import annotations

__all__ = ["marker_name"]


def marker_name(kind: str, value: str) -> str:
    """``dialect_openai_responses`` for ``("dialect", "openai-responses")``."""
    return f"{kind}_{value.replace('-', '_').replace('.', '_')}"
