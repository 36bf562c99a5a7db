"""What a rule run yields: findings with evidence and cost, grouped per scenario and dialect."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Literal, TypeAlias, get_args

from ..prefix import Window

__all__ = [
    "BYTES_PER_TOKEN",
    "STATUSES",
    "Cost",
    "Evidence",
    "Finding",
    "ScenarioReport",
    "Status",
    "combine",
    "loses_cache",
    "worst",
]

Status: TypeAlias = Literal["fail", "warning", "note", "pass", "not-applicable"]
STATUSES: tuple[Status, ...] = get_args(Status)
"""Every status, worst first."""

BYTES_PER_TOKEN = 4
"""The token estimate's divisor: ~4 bytes of prefix stream (compact JSON) per token."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a rule saw the problem, in one body of the outcome.

    ``body`` names it (``children[1]``, ``follow_ups[0]``, ``parent_next``); ``against`` is
    what it was compared with (``parent``, ``children[0]``; None when the body is judged on
    its own or against the scenario's content). ``offset`` is a byte offset in the body's prefix
    stream, ``segment``/``against_segment`` the segments there, ``path`` the JSON path of the
    first differing value, ``diff`` the structural diff lines.
    """

    body: str
    against: str | None = None
    offset: int | None = None
    segment: str | None = None
    against_segment: str | None = None
    path: str | None = None
    reason: str | None = None
    window: Window | None = None
    against_window: Window | None = None
    diff: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Cost:
    """Cached prefix lost: ``lost_bytes`` of the inherited prefix stream the child cannot reuse,
    out of the child's ``child_bytes`` of prefix stream. ``real_tokens`` is those bytes counted
    in the OpenAI ``encoding`` when the ``tokens`` extra can (``harness.rules._tokens``); they
    are counted for failures only, by the engine, from ``lost_from`` in the parent's stream
    (counting costs ~0.3 s a megabyte: a conforming run's accepted divergences must not pay)."""

    lost_bytes: int
    child_bytes: int
    real_tokens: int | None = None
    encoding: str | None = None
    lost_from: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.lost_bytes <= self.child_bytes:
            raise ValueError(f"a cost of {self.lost_bytes} bytes out of {self.child_bytes}")

    @property
    def share(self) -> float:
        """The lost bytes as a share of the child's prefix stream: at most 1."""
        return self.lost_bytes / self.child_bytes if self.child_bytes else 0.0

    @property
    def tokens(self) -> int:
        """An estimate at ``BYTES_PER_TOKEN`` bytes per token, rounded up."""
        return -(-self.lost_bytes // BYTES_PER_TOKEN)


def loses_cache(cost: Cost | None) -> bool:
    """Whether a finding's cost loses cached prefix: the one test a rule's severity reads
    from its cost. A finding that loses none (no cost, or none of the parent's prefix lost)
    is a warning with its reason, not an error."""
    return cost is not None and cost.lost_bytes > 0


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule's verdict on one scenario in one dialect, with a one-line ``message``."""

    rule: str
    status: Status
    message: str
    evidence: Evidence | None = None
    cost: Cost | None = None


def worst(findings: Sequence[Finding]) -> Finding:
    """The first of the findings with the worst status."""
    return min(findings, key=lambda f: STATUSES.index(f.status))


def combine(rule: str, findings: Sequence[Finding], *, none: str) -> Finding:
    """One finding for a rule checked on several bodies: the first worst one, counted.

    ``none`` is the not-applicable message when there was no body to check.
    """
    if not findings:
        return Finding(rule, "not-applicable", none)
    if len(findings) == 1:
        return findings[0]
    first = findings[0]
    status = first.status
    if status in _RANKS and all(f.status == status for f in findings):
        which = "all"  # the usual case: every body judged alike, the first one stands
    else:
        first = worst(findings)
        same = sum(f.status == first.status for f in findings)
        which = "all" if same == len(findings) else f"{same} of"
    return _with_message(first, f"{first.message} ({which} {len(findings)} bodies)")


_RANKS = frozenset(STATUSES)


def _with_message(finding: Finding, message: str) -> Finding:
    """``replace(finding, message=message)``, built directly while ``Finding`` has the five
    fields it is built from here (``replace`` costs more than the rule it ends); with any
    other fields, or for a subclass, through ``replace``, so that none is dropped."""
    if type(finding) is not Finding or _FINDING_FIELDS != _FIVE:
        return replace(finding, message=message)
    return Finding(finding.rule, finding.status, message, finding.evidence, finding.cost)


_FINDING_FIELDS = tuple(f.name for f in fields(Finding))
_FIVE = ("rule", "status", "message", "evidence", "cost")


@dataclass(frozen=True, slots=True)
class ScenarioReport:
    """Every rule's finding for one scenario, assembled by one subject in one dialect."""

    scenario_id: str
    dialect: str
    subject: str
    findings: tuple[Finding, ...]

    @property
    def failed(self) -> bool:
        return any(f.status == "fail" for f in self.findings)

    @property
    def counts(self) -> dict[Status, int]:
        """How many findings have each status, every status present, worst first."""
        return {s: sum(f.status == s for f in self.findings) for s in STATUSES}

    def finding(self, rule: str) -> Finding:
        """The finding of ``rule``; ``KeyError`` when the report has none."""
        for f in self.findings:
            if f.rule == rule:
                return f
        raise KeyError(f"no finding for rule {rule!r}")
