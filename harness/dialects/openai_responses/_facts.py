"""What OpenAI documents about prompt caching for the Responses API, as the rules judge by it.

As for chat completions: the cache is per model and routed by ``prompt_cache_key``; the
reasoning effort is rendered into the model's system header ahead of the instructions
(OpenAI's harmony format), so a child with another effort reads none of the parent's
prefix. The structured-output format (``text.format``) is a prefix segment.

Cache markers are OpenAI's explicit breakpoints, ``prompt_cache_breakpoint`` on a content
part or a tool-output item: at most 4 per request, no lookback limit (a marker reads any
entry at or before its block), a ttl of ``"30m"`` unless the marker or the request's
``prompt_cache_options`` names one. Blocks are counted in cache order: one for the
instructions, each tool and the format; per item one for a string content or one per content
part, and one for any other item.

From the Responses API reference: ``input`` is a list of items, each an input message, an
output item or a tool call's output, with no rule of alternation; consecutive user messages
(a runtime's environment context, then the prompt) are read as they are
(``consecutive_turns``).
"""

from __future__ import annotations

from .._facts import Facts, Link, Markers
from .._openai_facts import CACHING, MISS_REASONS, OPENAI_CACHE
from .._openai_units import EQUIVALENCES

__all__ = ["FACTS", "NAME", "SYSTEM_ROLES"]

NAME = "openai-responses"
SYSTEM_ROLES = ("system", "developer")

FACTS = Facts(
    name=NAME,
    title="OpenAI Responses",
    provider="OpenAI",
    segments={"instructions": "system", "tools": "tools", "text": "settings", "input": "history"},
    system_roles=SYSTEM_ROLES,
    markers=Markers(limit=4, lookback=None, default_ttl="30m"),
    cache_keys={
        "model": "request",
        "prompt_cache_key": "request",
        "reasoning.effort": "request",
    },
    tokenizer="openai",
    consecutive_turns="accepted",
    links=(
        Link(
            "request",
            "https://platform.openai.com/docs/api-reference/responses/create",
            "2026-12-01",
        ),
        Link("caching", CACHING.url, CACHING.as_of),
    ),
    cache=OPENAI_CACHE,
    equivalences=EQUIVALENCES,
    miss_reasons=MISS_REASONS,
)
