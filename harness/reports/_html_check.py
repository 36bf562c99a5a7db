"""The HTML report's rules part: the rules × dialects matrix and one card per failure.

A cell is ``fail`` when a failure in it is not expected, ``expected`` when every failure in
it is a known one, ``pass`` when a rule held (warnings and notes included, counted) and
``na`` when it applied nowhere; a failing or expected cell links to its failures. A card
shows the rule and scenario, the one-line reason, both sides of the divergence in the byte
window the text report shows (``Evidence.window``/``against_window``, from
``harness.prefix.byte_window``), the structural diff, and a bar of the child's prefix
(``_cost.cost_html``): the bytes up to the divergence, which the cache still serves, the
inherited bytes lost after it, and the child's own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..prefix import Window, byte_window
from ..rules import Evidence, Finding, ScenarioReport, catalog, rule_info
from ._cost import cost_html, per_divergence
from ._html_page import anchor, esc, esc_lines
from ._rules_text import ACCEPTED_MARK, status_cell

__all__ = ["Failure", "Known", "failure_cards", "failures_of", "matrix"]

Known = Callable[[ScenarioReport, Finding], "str | None"]
"""The reason a failure is expected (known), or None when it is not."""

_ENDED = byte_window(None, 0).text
"""What a window says of a side whose prefix ended before the difference."""
_CELL_TITLES = {
    "fail": "failed",
    "expected": "expected failure",
    "pass": "passed",
    "na": "not applicable",
}


@dataclass(frozen=True, slots=True)
class Failure:
    """A failed finding of a report; ``known`` is the reason it was expected, if it was."""

    report: ScenarioReport
    finding: Finding
    known: str | None = None


def failures_of(reports: Sequence[ScenarioReport], known: Known) -> list[Failure]:
    """Every failed finding, in catalog order of its rule, then in the reports' order."""
    order = {info.id: i for i, info in enumerate(catalog())}
    found = [Failure(r, f, known(r, f)) for r in reports for f in r.findings if f.status == "fail"]
    return sorted(found, key=lambda x: order.get(x.finding.rule, len(order)))


def _target(failure: Failure) -> str:
    kind = "expected" if failure.known is not None else "fail"
    return anchor(kind, failure.finding.rule, failure.report.dialect)


def _cell(
    rule: str, dialect: str, reports: Sequence[ScenarioReport], failures: list[Failure]
) -> str:
    mine = [x for x in failures if x.finding.rule == rule and x.report.dialect == dialect]
    unexpected = [x for x in mine if x.known is None]
    findings = [f for r in reports for f in r.findings if f.rule == rule]
    shown = status_cell(reports, rule)
    if unexpected:
        kind, link = "fail", _target(unexpected[0])
    elif mine:
        kind, link = "expected", _target(mine[0])
    elif any(f.status != "not-applicable" for f in findings):
        kind, link = "pass", None
    else:
        kind, link = "na", None
    text = esc(shown)
    if link is not None:
        text = f'<a href="#{link}">{text}</a>'
    title = f"{rule} in {dialect}: {_CELL_TITLES[kind]}"
    return (
        f'<td class="cell {kind}" data-rule="{esc(rule)}" data-dialect="{esc(dialect)}"'
        f' data-status="{kind}" title="{esc(title)}">{text}</td>'
    )


def matrix(
    reports: Sequence[ScenarioReport], dialects: Sequence[str], failures: list[Failure]
) -> str:
    """The rules × dialects table; counts are scenario runs (or checked groups)."""
    head = "".join(f"<th>{esc(d)}</th>" for d in dialects)
    by_dialect = {d: [r for r in reports if r.dialect == d] for d in dialects}
    rows = []
    for info in catalog():
        cells = "".join(_cell(info.id, d, by_dialect[d], failures) for d in dialects)
        rows.append(
            f'<tr><th scope="row" title="{esc(info.title)}"><code>{esc(info.id)}</code></th>'
            f"{cells}</tr>"
        )
    legend = (
        '<p class="legend"><span class="pass">✓ passed (! warning,'
        f" {ACCEPTED_MARK} accepted divergence, i note)</span>"
        '<span class="fail">✗ failed</span><span class="expected">✗ expected failure</span>'
        '<span class="na">- not applicable</span> <span class="muted">counts are runs;'
        " a failing cell links to its failures</span></p>"
    )
    return (
        f'<table class="matrix"><thead><tr><th>rule</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>\n{legend}"
    )


def _side(label: str, window: Window) -> str:
    if window.text == _ENDED:
        shown = f'<span class="muted">{esc(window.text)}</span>'
    else:
        before = esc(window.text[: window.caret])
        at = esc(window.text[window.caret : window.caret + 1])
        after = esc(window.text[window.caret + 1 :])
        shown = f'{before}<span class="after"><span class="caret">{at}</span>{after}</span>'
    return (
        f'<div class="side" data-side="{esc(label)}"><div class="label">{esc(label)}</div>'
        f'<pre class="window">{shown}</pre></div>'
    )


def _facts(e: Evidence, message: str) -> str:
    rows = []
    against = f" (against {e.against})" if e.against else ""
    rows.append(("body", f"{e.body}{against}"))
    if e.offset is not None:
        rows.append(("offset", f"byte {e.offset:,} of the body's prefix stream"))
    if e.segment or e.against_segment:
        other = e.against_segment if e.against_segment not in (None, e.segment) else None
        theirs = f" ({e.against}: {other})" if other else ""
        rows.append(("segment", f"{e.segment or '(none)'}{theirs}"))
    if e.path:
        rows.append(("path", e.path))
    if e.reason and e.reason not in message:
        rows.append(("why", e.reason))
    items = "".join(f"<dt>{esc(k)}</dt><dd><code>{esc(v)}</code></dd>" for k, v in rows)
    return f'<dl class="facts">{items}</dl>'


def _card(failure: Failure, earlier: Finding | None = None) -> str:
    r, f = failure.report, failure.finding
    info = rule_info(f.rule)
    kind = "failure expected" if failure.known is not None else "failure"
    parts = [
        f"<h3><code>{esc(f.rule)}</code> — {esc(info.title)}</h3>",
        f'<div class="muted">{esc(r.dialect)} · scenario <code>{esc(r.scenario_id)}</code>'
        f" · {esc(info.severity)} · subject {esc(r.subject)}</div>",
        f'<p class="reason">{esc(f.message)}</p>',
    ]
    if failure.known is not None:
        parts.append(f"<p>expected failure: {esc(failure.known)}</p>")
    e = f.evidence
    if e is not None:
        parts.append(_facts(e, f.message))
        if e.against_window is not None and e.against:
            parts.append(_side(e.against, e.against_window))
        if e.window is not None:
            parts.append(_side(e.body, e.window))
    if f.cost is not None and earlier is not None:
        parts.append(
            f'<p class="muted same" data-same="{esc(earlier.rule)}">cost: the divergence'
            f" <code>{esc(earlier.rule)}</code> found (its tokens counted once)</p>"
        )
    elif f.cost is not None:
        parts.append(cost_html(e.body if e is not None else "child", f))
    if e is not None and e.diff:
        parts.append(
            f'<div class="label">structure</div><pre>{esc_lines(chr(10).join(e.diff))}</pre>'
        )
    data = f'data-rule="{esc(f.rule)}" data-dialect="{esc(r.dialect)}"'
    data += f' data-scenario="{esc(r.scenario_id)}"'
    return f'<article class="{kind}" {data}>{"".join(parts)}</article>'


def failure_cards(failures: Sequence[Failure]) -> str:
    """The cards, grouped by rule and dialect; each group's id is what its cell links to. A
    card of a divergence an earlier card showed says so instead of its bar: its bytes are
    counted once."""
    earlier = {id(f): e for _, f, e in per_divergence((x.report, x.finding) for x in failures)}
    groups: dict[str, list[Failure]] = {}
    for x in failures:
        groups.setdefault(_target(x), []).append(x)
    blocks = []
    for target, items in groups.items():
        first = items[0]
        where = f"{first.finding.rule} · {first.report.dialect} ({len(items)})"
        cards = "".join(_card(x, earlier.get(id(x.finding))) for x in items)
        blocks.append(
            f'<details class="group" id="{target}" open><summary>{esc(where)}</summary>'
            f"{cards}</details>"
        )
    index = ""
    if len(groups) > 1:
        links = "".join(
            f'<li><a href="#{target}">{esc(items[0].finding.rule)} · {esc(items[0].report.dialect)}'
            f"</a> ({len(items)})</li>"
            for target, items in groups.items()
        )
        index = f'<ul class="index">{links}</ul>\n'
    return index + "\n".join(blocks)
