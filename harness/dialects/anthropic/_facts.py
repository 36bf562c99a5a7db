"""What Anthropic documents about its prompt cache, as the rules judge by it.

From the prompt caching guide: the cache order is tools, system, messages; a request carries
at most 4 ``cache_control`` breakpoints; a read looks back from each breakpoint for the
longest cached prefix over at most 20 blocks; a marker's ``ttl`` is ``"5m"`` unless it says
``"1h"``. Blocks are counted in cache order as: one per tool, one for a string system prompt
or one per system block, and per message one for a string content or one per top-level
content block (a tool_result with nested blocks is one block).

Caches are per model; a changed tool choice or thinking configuration (enabled, budget,
effort) invalidates the cached message blocks while tools and system stay cached; a changed
structured-output format invalidates the conversation's cache.

From the Messages API reference: "Consecutive user or assistant turns in your request will
be combined into a single turn" (``consecutive_turns``).
"""

from __future__ import annotations

from .._facts import Facts, Link, Markers
from ._equivalences import EQUIVALENCES
from ._models import CACHE

__all__ = ["FACTS", "NAME"]

NAME = "anthropic"

FACTS = Facts(
    name=NAME,
    title="Anthropic messages",
    provider="Anthropic",
    segments={"tools": "tools", "system": "system", "messages": "history"},
    markers=Markers(limit=4, lookback=20, default_ttl="5m"),
    cache_keys={
        "model": "request",
        "output_format": "request",
        "tool_choice": "history",
        "thinking": "history",
        "output_config": "history",
    },
    consecutive_turns="combined",
    links=(
        Link("request", "https://platform.claude.com/docs/en/api/messages/create", "2026-08-21"),
        Link(
            "caching",
            "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
            "2026-08-21",
        ),
        Link(
            "diagnostics",
            "https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics",
            "2026-08-21",
        ),
    ),
    cache=CACHE,
    equivalences=EQUIVALENCES,
    miss_reasons={
        "tools": "tools_changed",
        "system": "system_changed",
        "history": "messages_changed",
        "model": "model_changed",
        "*": "unavailable",
    },
)
