"""What OpenAI documents about prompt caching for chat completions, as the rules judge by it.

The cache is per model; requests are routed by a hash of the prefix combined with
``prompt_cache_key``, so a child with another key lands where the parent's prefix is not
cached. The reasoning effort is rendered into the model's system header, ahead of everything
else (OpenAI's harmony format), so a change of it reads none of the prefix. The
structured-output schema (``response_format``) is a prefix segment itself. Chat completions
have no cache markers.
"""

from __future__ import annotations

from .._facts import Facts, Link
from .._openai_facts import CACHING, MISS_REASONS, OPENAI_CACHE
from .._openai_units import EQUIVALENCES

__all__ = ["FACTS", "NAME", "SYSTEM_ROLES"]

NAME = "openai"
SYSTEM_ROLES = ("system", "developer")

FACTS = Facts(
    name=NAME,
    title="OpenAI chat completions",
    provider="OpenAI",
    segments={"tools": "tools", "response_format": "settings", "messages": "history"},
    system_roles=SYSTEM_ROLES,
    cache_keys={
        "model": "request",
        "prompt_cache_key": "request",
        "reasoning_effort": "request",
    },
    tokenizer="openai",
    links=(
        Link("request", "https://platform.openai.com/docs/api-reference/chat/create", "2026-12-01"),
        Link("caching", CACHING.url, CACHING.as_of),
    ),
    cache=OPENAI_CACHE,
    equivalences=EQUIVALENCES,
    miss_reasons=MISS_REASONS,
)
