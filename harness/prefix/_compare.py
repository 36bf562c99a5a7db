"""Comparing a parent's and a fork's request: prefix stream, divergence, settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._bodies import Encodings
from ..dialects import ParsedBody
from ..model import dumps
from ._locate import Divergence, locate
from ._stream import PrefixStream, prefix_stream

__all__ = ["MISSING", "PrefixComparison", "SettingChange", "compare", "compare_settings"]


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
    """The result of comparing two requests of one dialect."""

    dialect: str
    parent: PrefixStream
    fork: PrefixStream
    divergence: Divergence | None
    settings_compared: tuple[str, ...]
    settings_changed: tuple[SettingChange, ...]

    @property
    def preserved(self) -> bool:
        """The fork's prefix stream starts with the parent's whole prefix stream."""
        return self.divergence is None

    @property
    def shared(self) -> int:
        """Bytes of prefix stream the two requests share."""
        return self.parent.length if self.divergence is None else self.divergence.offset

    @property
    def share(self) -> float:
        """The shared bytes as a share of the fork's prefix stream (1.0 for an empty fork)."""
        return self.shared / self.fork.length if self.fork.length else 1.0


def compare(
    parent: ParsedBody, fork: ParsedBody, *, known: Encodings | None = None
) -> PrefixComparison:
    """Compare a parent's last request with a fork's first request; segments in ``known``
    are framed with its encodings (``harness._bodies.decode_pair``'s).

    ``StreamError`` when a segment of either cannot be encoded.
    """
    parent_stream = prefix_stream(parent, known)
    fork_stream = prefix_stream(fork, known)
    names, changes = compare_settings(parent.settings, fork.settings)
    divergence = locate(parent_stream, fork_stream)
    return PrefixComparison(
        dialect=parent.dialect.name,
        parent=parent_stream,
        fork=fork_stream,
        divergence=divergence,
        settings_compared=names,
        settings_changed=changes,
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
