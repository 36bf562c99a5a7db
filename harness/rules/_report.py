"""What a rule run yields: findings with evidence and cost, grouped per scenario and dialect."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Literal, TypeAlias, get_args

from ..prefix import Window

__all__ = [
    "REFERENCE_PARENT_TOKENS",
    "STATUSES",
    "Cost",
    "CostCause",
    "Evidence",
    "Finding",
    "RequestUsage",
    "ScenarioReport",
    "Status",
    "combine",
    "loses_cache",
    "worst",
]

Status: TypeAlias = Literal["fail", "warning", "note", "pass", "not-applicable"]
STATUSES: tuple[Status, ...] = get_args(Status)
"""Every status, worst first."""

REFERENCE_PARENT_TOKENS = 50_000
"""The parent size a cost is also stated at: scenarios are far smaller than any provider's
minimum cacheable prefix, so their own size says little of what a divergence costs."""


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


CostCause: TypeAlias = Literal["divergence", "settings", "boundaries"]


@dataclass(frozen=True, slots=True)
class Cost:
    """Cached prefix lost, by one cause, as the provider's cache model predicts it
    (docs/cache-model.md).

    ``tokens`` of the parent's cached prefix the child does not read, out of the child's
    ``prefix_tokens``: counted by the provider's tokenizer where ``exact`` (its ``encoding``),
    else estimated. ``cause`` says why: the child stops repeating the parent (``divergence``),
    a setting the cache is keyed on changed (``settings``), or the child's own breakpoints or
    lookup boundaries cannot reach the parent's entry (``boundaries``). ``lost_bytes`` of the
    child's ``child_bytes`` of prefix stream lie from the place it parts on. The same loss at a
    parent of ``REFERENCE_PARENT_TOKENS`` is ``reference_tokens``, at ``reference_usd`` for
    each such child at the prices of ``model``. ``miss_reason`` is the provider's own name for
    such a miss (its diagnostics' vocabulary), where it has one."""

    tokens: int
    prefix_tokens: int
    cause: CostCause = "divergence"
    exact: bool = False
    encoding: str | None = None
    lost_bytes: int = 0
    child_bytes: int = 0
    reference_tokens: int | None = None
    reference_usd: float | None = None
    model: str | None = None
    miss_reason: str | None = None
    lost_from: int | None = field(default=None, compare=False)
    """Where the child leaves what the cost is counted against: the byte of its prefix
    stream at which a divergence lies (None for a settings or boundaries loss), the same for
    every rule that finds that divergence, so that reports count it once."""

    def __post_init__(self) -> None:
        if self.tokens < 0 or self.prefix_tokens < 0:
            raise ValueError(f"a cost of {self.tokens} tokens out of {self.prefix_tokens}")
        if not 0 <= self.lost_bytes <= max(self.child_bytes, self.lost_bytes):
            raise ValueError(f"a cost of {self.lost_bytes} bytes out of {self.child_bytes}")

    @property
    def share(self) -> float:
        """The lost tokens as a share of the child's prefix: at most 1."""
        if not self.prefix_tokens:
            return 0.0
        return min(1.0, self.tokens / self.prefix_tokens)

    @property
    def real_tokens(self) -> int | None:
        """The tokens lost where a tokenizer counted them (None: an estimate)."""
        return self.tokens if self.exact else None

    @property
    def loses_cache(self) -> bool:
        """Whether any cached prefix is lost."""
        return self.tokens > 0


@dataclass(frozen=True, slots=True)
class RequestUsage:
    """What one request of an outcome reads from and writes to the provider's cache, as its
    cache model predicts (minimum lengths not applied: ``below_minimum`` says where the
    provider would cache nothing at this size, ``minimum`` being the model's).

    ``fields`` is the same in the provider's own usage fields (``cache_read_input_tokens``,
    ``prompt_tokens_details.cached_tokens``, ...), dotted names for nested ones."""

    body: str
    total: int
    read: int
    written: int
    exact: bool
    fields: Mapping[str, int]
    below_minimum: bool = False
    minimum: int = 0
    model: str | None = None
    caching: bool = True
    notes: tuple[str, ...] = ()

    @property
    def uncached(self) -> int:
        return max(0, self.total - self.read - self.written)


def loses_cache(cost: Cost | None) -> bool:
    """Whether a finding's cost loses cached prefix: a finding that loses none is at most a
    warning (docs/cache-model.md)."""
    return cost is not None and cost.loses_cache


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
    # of bodies judged alike, one that names an equivalence it was judged by says more
    noted = [f for f in findings if f.status == first.status and EQUIVALENCE_NOTE in f.message]
    if noted and EQUIVALENCE_NOTE not in first.message:
        first = noted[0]
    return _with_message(first, f"{first.message} ({which} {len(findings)} bodies)")


EQUIVALENCE_NOTE = "same to the cache"
"""How a finding names the documented equivalence it was judged by (``Equivalence``)."""


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
    usage: tuple[RequestUsage, ...] = ()
    """Each request's predicted cache usage (``Context.usage``); none where the bodies
    were not read."""

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
