"""The fake provider's prompt cache: each request it answers is priced and sent through one
simulated cache, so that its reply reports the cached tokens a provider would (predicted,
at the request's real size: minimums apply), in the provider's own usage fields.

One ``CacheUsage`` is one run's cache, owned by its ``Exchange``; requests arrive on
parallel connections, so sending through the cache is done under a lock (pricing, the
costly part, is not).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..dialects import Dialect
from ..prefix import CacheSimulator, priced

__all__ = ["CacheUsage", "Predicted"]


@dataclass(frozen=True, slots=True)
class Predicted:
    """A request's predicted usage: its input tokens (``total``; ``exact`` when counted by
    the provider's tokenizer, else estimated), what it read from the cache and wrote to it,
    and the same in the provider's usage fields (``Dialect.usage_fields``)."""

    total: int
    read: int
    written: int
    exact: bool
    fields: Mapping[str, int]


class CacheUsage:
    """One simulated provider cache (``CacheSimulator(minimums=True)``) that the requests of
    one run go through in the order they are answered."""

    def __init__(self) -> None:
        self._simulator = CacheSimulator(minimums=True)
        self._lock = threading.Lock()

    def send(
        self,
        dialect: Dialect,
        body: Mapping[str, Any],
        model: str | None = None,
        at: float | None = None,
    ) -> Predicted | str:
        """Price ``body`` (as the provider reads it: a continuation expanded) and send it
        through the cache at time ``at`` (seconds; ``None``: entries never expire): its
        predicted usage, or why it could not be priced (the reply then says nothing of the
        cache; the record's note says why). ``model`` is the model the request names
        where its body names none (Gemini's is in the URL): its row of the cache facts
        (minimum, tokens) applies."""
        if model is not None and "model" not in body:
            body = {**body, "model": model}
        try:
            cost = priced(dialect.cache_view(body))
        except RecursionError:
            return "the body is nested too deeply to price"
        except Exception as e:  # a reply's usage must never cost the agent its reply
            return f"the {dialect.name} cache model could not price the body ({e})"
        with self._lock:
            used = self._simulator.send(cost.data, cost.tokens, cost.view.plan, at=at)
        fields = dialect.usage_fields(used.total, used.read, used.written, body)
        return Predicted(used.total, used.read, used.written, cost.exact, fields)
