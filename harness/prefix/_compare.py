"""Comparing a parent's and a fork's request: prefix stream, divergence, settings, and what
the provider's cache makes of the fork sent right after the parent.

By default the streams are the *rendered* prefixes (the units the provider renders, each in
the canonical form its documented equivalences give) and the verdict is the cache's: the fork
keeps the prefix when it loses no cached token, whatever its JSON spelling. ``strict`` keeps
the byte view (segments as sent, key order everywhere) and its verdict: the fork's stream
starts with the parent's whole stream (docs/cache-model.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._bodies import Encodings
from ..dialects import ParsedBody, Segment
from ..model import dumps
from ._cache import PrefixCache, Priced, judge_pair, priced
from ._locate import Divergence, locate
from ._stream import PrefixStream, StreamError, prefix_stream

__all__ = [
    "MISSING",
    "PrefixComparison",
    "SettingChange",
    "compare",
    "compare_settings",
    "rendered_stream",
]


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


MISSING: Any = _Missing()
"""Stands for a setting one side does not send."""


@dataclass(frozen=True, slots=True)
class SettingChange:
    name: str
    parent: Any
    fork: Any


@dataclass(frozen=True, slots=True)
class PrefixComparison:
    """The result of comparing two requests of one dialect: their streams (rendered, or as
    sent when ``strict``), the first difference, the settings, and the cache's judgement of
    the fork sent right after the parent (``cache``, with both requests ``priced``)."""

    dialect: str
    parent: PrefixStream
    fork: PrefixStream
    divergence: Divergence | None
    settings_compared: tuple[str, ...]
    settings_changed: tuple[SettingChange, ...]
    cache: PrefixCache
    parent_priced: Priced
    fork_priced: Priced
    usage_fields: Mapping[str, int]
    """The fork's usage as its response would report it at this size (``cache.at_size``),
    in the provider's own usage fields."""
    strict: bool = False

    @property
    def lost_tokens(self) -> int:
        """Cached tokens of the parent's the fork does not read, for any reason (the
        settings' loss may overlap the others: the largest counts)."""
        c = self.cache
        return max(c.lost_to_divergence + c.lost_to_boundaries, c.lost_to_settings)

    @property
    def preserved(self) -> bool:
        """The fork keeps the parent's prefix: it loses no cached token (``strict``: its
        stream starts with the parent's whole stream, byte for byte)."""
        if self.strict:
            return self.divergence is None
        return self.lost_tokens == 0

    @property
    def shared(self) -> int:
        """Bytes of prefix stream the two requests share."""
        return self.parent.length if self.divergence is None else self.divergence.offset

    @property
    def share(self) -> float:
        """The shared bytes as a share of the fork's prefix stream (1.0 for an empty fork)."""
        return self.shared / self.fork.length if self.fork.length else 1.0

    @property
    def keyed_changed(self) -> tuple[str, ...]:
        """The settings the cache is keyed on whose values differ (a model, a routing key)."""
        mine = {k.name: k.value for k in self.parent_priced.view.plan.keyed}
        theirs = {k.name: k.value for k in self.fork_priced.view.plan.keyed}
        return tuple(n for n in dict.fromkeys([*mine, *theirs]) if mine.get(n) != theirs.get(n))


def rendered_stream(parsed: ParsedBody) -> PrefixStream:
    """The rendered prefix of a parsed body as a stream: one segment per unit, named by its
    place in the rendered prompt."""
    return PrefixStream(tuple(Segment(u.name, u.value) for u in parsed.cache.units))


def compare(
    parent: ParsedBody,
    fork: ParsedBody,
    *,
    known: Encodings | None = None,
    strict: bool = False,
) -> PrefixComparison:
    """Compare a parent's last request with a fork's first request, on their rendered
    prefixes (``strict``: on their segments as sent, those in ``known`` framed with its
    encodings, ``harness._bodies.decode_pair``'s).

    ``StreamError`` when a segment of either cannot be encoded.
    """
    if strict:
        parent_stream, fork_stream = prefix_stream(parent, known), prefix_stream(fork, known)
    else:
        try:
            parent_stream, fork_stream = rendered_stream(parent), rendered_stream(fork)
        except (TypeError, ValueError) as e:  # a value JSON cannot write (an integer too long)
            raise StreamError(
                f"a unit of the rendered prefix cannot be encoded as JSON: {e}"
            ) from None
    names, changes = compare_settings(parent.settings, fork.settings)
    divergence = locate(parent_stream, fork_stream)
    try:
        mine, theirs = priced(parent.cache), priced(fork.cache)
    except (TypeError, ValueError) as e:  # a value JSON cannot write (an integer too long)
        raise StreamError(f"a unit of the rendered prefix cannot be encoded as JSON: {e}") from None
    judged = judge_pair(mine, theirs)
    used = judged.at_size
    fields = fork.dialect.usage_fields(used.total, used.read, used.written, fork.body)
    return PrefixComparison(
        dialect=parent.dialect.name,
        parent=parent_stream,
        fork=fork_stream,
        divergence=divergence,
        settings_compared=names,
        settings_changed=changes,
        cache=judged,
        parent_priced=mine,
        fork_priced=theirs,
        usage_fields=fields,
        strict=strict,
    )


def compare_settings(
    parent: Mapping[str, Any], fork: Mapping[str, Any]
) -> tuple[tuple[str, ...], tuple[SettingChange, ...]]:
    """The names compared (parent's order, then the fork's own) and those that differ.

    Values compare by their compact encoding, so key order inside a setting counts (and an
    integer beyond 64 bits by its exact digits).
    """
    names = tuple(dict.fromkeys([*parent, *fork]))
    changes = tuple(
        SettingChange(name, parent.get(name, MISSING), fork.get(name, MISSING))
        for name in names
        if name not in parent or name not in fork or dumps(parent[name]) != dumps(fork[name])
    )
    return names, changes
