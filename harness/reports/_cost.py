"""What a finding costs, in every form a report takes, and costs summed per divergence.

Each form has one function that reads a ``Cost`` (``cost_text``, ``cost_markdown``,
``cost_html``, ``cost_json``): what a cost holds may change, and then these four change, and
nothing else of the reports.

Several rules can find one divergence: a child whose tools are reordered fails
``tools-identical`` and ``byte-prefix`` at the same byte, each with the same bytes lost.
The cache loses them once, so a sum counts each divergence once (``per_divergence``): the
findings of one child of one scenario run that part from what they compare at the same byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeAlias

from ..rules import REFERENCE_PARENT_TOKENS, Cost, Finding, ScenarioReport

__all__ = [
    "DivergenceKey",
    "cost_html",
    "cost_json",
    "cost_markdown",
    "cost_text",
    "divergence_key",
    "lost_tokens",
    "per_divergence",
    "shared_bytes",
]

DivergenceKey: TypeAlias = tuple[str, str, str, str, int]
"""(subject, dialect, scenario, child, byte): where one divergence is."""


def shared_bytes(finding: Finding) -> int | None:
    """Where the child leaves what it is compared with: the bytes of its prefix stream that
    the cache can still serve. That is where a divergence's cost is counted from
    (``Cost.lost_from``: a rule may point its evidence at the segment that holds the
    difference, before it), else the evidence's offset; None when the finding says neither."""
    if finding.cost is not None and finding.cost.lost_from is not None:
        return finding.cost.lost_from
    if finding.evidence is not None and finding.evidence.offset is not None:
        return finding.evidence.offset
    return None


def divergence_key(report: ScenarioReport, finding: Finding) -> DivergenceKey | None:
    """The divergence a finding with a cost found (its child and byte), or None when it names
    none (it is then a divergence of its own)."""
    offset = shared_bytes(finding)
    if finding.cost is None or finding.evidence is None or offset is None:
        return None
    return (report.subject, report.dialect, report.scenario_id, finding.evidence.body, offset)


def per_divergence(
    found: Iterable[tuple[ScenarioReport, Finding]],
) -> Iterator[tuple[ScenarioReport, Finding, Finding | None]]:
    """Each finding with the earlier finding of the same divergence (None for the first):
    only the first one's cost counts."""
    first: dict[DivergenceKey, Finding] = {}
    for report, finding in found:
        key = divergence_key(report, finding)
        earlier = None if key is None else first.setdefault(key, finding)
        yield report, finding, (None if earlier is finding else earlier)


def lost_tokens(found: Iterable[tuple[ScenarioReport, Finding]]) -> int:
    """The cached tokens lost by the findings with a cost, each divergence counted once."""
    return sum(
        f.cost.tokens
        for _, f, earlier in per_divergence(found)
        if f.cost is not None and earlier is None
    )


_CAUSES = {
    "divergence": "a divergence",
    "settings": "a changed setting",
    "boundaries": "the child's cache boundaries",
}


def _tokens(cost: Cost, count: int) -> str:
    return f"{count:,}" if cost.exact else f"~{count:,}"


def cost_text(cost: Cost) -> str:
    """``~1,234 tokens of cached prefix lost to a divergence = 35.0% of the child's prefix
    (estimate); at a 50,000-token parent ~20,000 tokens, $0.0540 a child (Claude Sonnet 5
    prices); the provider calls it tools_changed``."""
    counted = f"in {cost.encoding}" if cost.exact and cost.encoding else "estimate"
    text = (
        f"{_tokens(cost, cost.tokens)} tokens of cached prefix lost to {_CAUSES[cost.cause]}"
        f" = {cost.share:.1%} of the child's prefix ({counted})"
    )
    if cost.reference_tokens is not None:
        text += f"; at a {REFERENCE_PARENT_TOKENS:,}-token parent ~{cost.reference_tokens:,} tokens"
        if cost.reference_usd and cost.model:
            text += f", ${cost.reference_usd:.4f} a child ({cost.model} prices)"
    if cost.miss_reason:
        text += f"; the provider calls it {cost.miss_reason}"
    return text


def cost_markdown(cost: Cost) -> str:
    """A Markdown table cell: ``~1,074 tokens (49.7%)``, the cached tokens lost and their
    share of the child's prefix."""
    return f"{_tokens(cost, cost.tokens)} tokens ({cost.share:.1%})"


def cost_json(cost: Cost | None) -> dict[str, Any] | None:
    """The ``cost`` object of the JSON reports (docs/reports.md)."""
    if cost is None:
        return None
    return {
        "cause": cost.cause,
        "tokens": cost.tokens,
        "tokens_exact": cost.exact,
        "tokens_encoding": cost.encoding,  # null where the tokens are an estimate
        "prefix_tokens": cost.prefix_tokens,
        "share_of_child": round(cost.share, 6),
        "lost_bytes": cost.lost_bytes,
        "child_bytes": cost.child_bytes,
        "reference_parent_tokens": REFERENCE_PARENT_TOKENS,
        "reference_tokens": cost.reference_tokens,
        "reference_usd": None if cost.reference_usd is None else round(cost.reference_usd, 6),
        "model": cost.model,
        "miss_reason": cost.miss_reason,
    }


def cost_html(label: str, finding: Finding) -> str:
    """The child's prefix as a bar: the bytes the cache still serves (up to the divergence),
    the inherited bytes lost, and the child's own bytes after them, which no cache held;
    with the same figures in words, the loss in cached tokens. Empty when the finding has no
    cost."""
    from ._html_page import bar, esc, percent  # the page's modules, loaded for a page only

    cost = finding.cost
    if cost is None:
        return ""
    whole = max(cost.child_bytes, cost.lost_bytes)
    shared = shared_bytes(finding)
    # the cache loses whole units: the bytes lost start at the changed unit, which may begin
    # before the first differing byte; the bar shows the bytes shared to that byte, then the
    # rest of the loss
    lost_bytes = (
        cost.lost_bytes if shared is None else min(cost.lost_bytes, whole - min(shared, whole))
    )
    lost = (
        f"{lost_bytes:,} lost ({_tokens(cost, cost.tokens)} cached tokens to"
        f" {_CAUSES[cost.cause]}{'' if cost.exact else ', an estimate'})"
    )
    if shared is None:
        pieces = [("lost", lost_bytes)]
        what = f"{lost} of {whole:,} bytes of prefix ({cost.share:.1%} of its tokens)"
    else:
        shared = min(shared, whole)
        own = max(0, whole - shared - lost_bytes)
        pieces = [("kept", shared), ("lost", lost_bytes), ("new", own)]
        what = (
            f"{shared:,} of {whole:,} bytes of prefix shared ({percent(shared, whole):.1f}%),"
            f" {lost}, {own:,} the child's own"
        )
    return (
        f'<div class="barline cost" data-body="{esc(label)}" data-shared="{shared or 0}"'
        f' data-lost="{lost_bytes}" data-whole="{whole}">'
        f'<div class="what">{esc(label)}</div>'
        f"<div>{bar(pieces, whole, title=what)}"
        f'<div class="what"><i class="swatch kept"></i>shared <i class="swatch lost"></i>lost'
        f' <i class="swatch new"></i>the child\'s own — {esc(what)}</div></div></div>'
    )
