"""Predicted against reported cache usage, for a log of real traffic (docs/capture.md,
"Reported usage").

When lines of a log carry the provider's usage, every usable request of the log is sent,
in the log's order, through one simulated cache at real size (``CacheSimulator`` with the
providers' minimum lengths), and each request that reports usage is held against what the
cache model predicts for it. A disagreement beyond the tolerance is a note for the user
checking the model on their own traffic, never a rule failure.

Token counts are exact only where the provider's tokenizer ships offline (OpenAI, with the
``tokens`` extra); elsewhere they are an estimate, so an estimated prediction is scaled to
the prompt size the provider reported before it is compared: the comparison is then of how
much of the prompt was read and written, not of the estimate's calibration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson

from ..dialects import ReportedUsage, get_dialect
from ..prefix import CacheSimulator, Usage, priced
from ._observe import Observed
from ._roles import Roles

__all__ = [
    "TOLERANCE_SHARE",
    "TOLERANCE_TOKENS",
    "UsageComparison",
    "UsageRow",
    "agrees",
    "compare_usage",
]

TOLERANCE_SHARE = 0.10
"""How far apart predicted and reported may be, as a share of the larger of the two ..."""
TOLERANCE_TOKENS = 32
"""... plus this many tokens (a few tokens of framing the rendering does not count). A
count of 0 against one above 0 always disagrees: one says the cache was hit, the other not."""

SCALES = (0.5, 2.0)
"""How far an estimated prompt may be from the reported one and still be scaled to it;
beyond, the two prompts differ for another reason, and the counts are compared as they are."""


@dataclass(frozen=True, slots=True)
class UsageRow:
    """One request that reports usage: what the cache model predicts for it and what the
    provider reported, or why the reported usage is not compared (``problem``).

    ``scale`` is reported prompt / predicted prompt when the prediction's tokens are an
    estimate (the predicted figures are compared multiplied by it), else None.
    ``disagreements`` says, one sentence each, where the two differ beyond the tolerance."""

    seq: int
    dialect: str
    conversation: str | None
    """The request's conversation (``conversation 2``), or how grouping took it (a retry)."""
    predicted: Usage
    fields: Mapping[str, int]
    exact: bool
    reported: ReportedUsage | None
    problem: str | None = None
    scale: float | None = None
    disagreements: tuple[str, ...] = ()

    @property
    def compared(self) -> bool:
        return self.reported is not None

    def scaled(self, tokens: int) -> int:
        """A predicted count as compared: scaled to the reported prompt for an estimate."""
        return tokens if self.scale is None else round(tokens * self.scale)


@dataclass(frozen=True, slots=True)
class UsageComparison:
    """The requests of a log that report usage, in the log's order."""

    rows: tuple[UsageRow, ...]
    share: float = TOLERANCE_SHARE
    tokens: int = TOLERANCE_TOKENS
    """The tolerance the rows were judged with (``agrees``)."""

    @property
    def compared(self) -> int:
        return sum(r.compared for r in self.rows)

    @property
    def disagreements(self) -> int:
        return sum(bool(r.disagreements) for r in self.rows)


def compare_usage(
    requests: Sequence[Observed], roles: Sequence[Roles] = ()
) -> UsageComparison | None:
    """Each of ``requests`` (in the log's order) sent through one simulated cache at real
    size, and the predicted usage of those that report one held against it; None when none
    reports usage (a log without usage shows nothing of this)."""
    if not any(r.reported is not None for r in requests):
        return None
    names = {
        (conv.first.dialect, seq): conv.name
        for placed in roles
        for conv in placed.conversations
        for seq in conv.seqs
    }
    for placed in roles:  # a retry is no request of its conversation, but was sent
        name = placed.conversations[0].first.dialect if placed.conversations else ""
        names.update({(name, r.seq): "a retry" for r in placed.grouping.retries})
    cache = CacheSimulator(minimums=True)
    rows = []
    for request in requests:
        dialect = get_dialect(request.dialect)
        body = _as_read(request)
        try:
            cost = priced(dialect.cache_view(body))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
            if request.reported is not None:  # the check read it, the cache model did not
                why = f"the {dialect.name} cache model cannot read the body ({e})"
                rows.append(_unread(request, names, why))
            continue
        used = cache.send(cost.data, cost.tokens, cost.view.plan)
        if request.reported is None:
            continue
        fields = dialect.usage_fields(used.total, used.read, used.written, body)
        row = UsageRow(
            request.seq,
            request.dialect,
            names.get((request.dialect, request.seq)),
            used,
            fields,
            cost.exact,
            None,
        )
        if isinstance(request.reported, str):
            rows.append(replace(row, problem=request.reported))
        else:
            rows.append(_judged(row, request.reported))
    return UsageComparison(tuple(rows))


def _as_read(request: Observed) -> Mapping[str, Any]:
    """The body as the provider read it (a continuation with what it continues)."""
    try:
        return request.read_body()
    except TypeError:  # built from its body, which it holds as sent
        found: Mapping[str, Any] = orjson.loads(request.body)
        return found


def _unread(request: Observed, names: Mapping[tuple[str, int], str], why: str) -> UsageRow:
    conversation = names.get((request.dialect, request.seq))
    return UsageRow(
        request.seq, request.dialect, conversation, Usage(0, 0, 0), {}, False, None, why
    )


def _judged(row: UsageRow, reported: ReportedUsage) -> UsageRow:
    """``row`` with the reported usage, its scale and where the two disagree."""
    scale = None
    if not row.exact and reported.total and row.predicted.total:
        scale = reported.total / row.predicted.total
        if not SCALES[0] <= scale <= SCALES[1]:  # no estimate is that far off: compare as is
            scale = None
    row = replace(row, reported=reported, scale=scale)
    found = [_differs("read", row.scaled(row.predicted.read), reported.read)]
    if reported.written is not None:
        found.append(_differs("written", row.scaled(row.predicted.written), reported.written))
    return replace(row, disagreements=tuple(f for f in found if f is not None))


def _differs(what: str, predicted: int, reported: int) -> str | None:
    """A sentence when ``predicted`` and ``reported`` tokens ``what`` disagree (``agrees``)."""
    if agrees(predicted, reported):
        return None
    if predicted == 0:
        return f"{reported:,} tokens {what} reported, none predicted"
    if reported == 0:
        return f"{predicted:,} tokens {what} predicted, none reported"
    return f"{predicted:,} tokens {what} predicted, {reported:,} reported"


def agrees(predicted: int, reported: int) -> bool:
    """Whether two token counts agree: both 0, or both above 0 and apart by no more than
    ``TOLERANCE_SHARE`` of the larger plus ``TOLERANCE_TOKENS``."""
    if (predicted == 0) != (reported == 0):
        return False
    margin = TOLERANCE_SHARE * max(predicted, reported) + TOLERANCE_TOKENS
    return abs(predicted - reported) <= margin
