"""Hypothesis strategies of what the reports are made from: scenario reports whose ids,
messages and evidence hold any text a subject could send (controls, bidirectional overrides,
lone surrogates, Markdown and XML syntax), and expectations that cover some of their
failures."""

from __future__ import annotations

from hypothesis import strategies as st

from harness.check import Expectations, KnownFailure
from harness.dialects import all_dialects
from harness.prefix import Window
from harness.rules import STATUSES, Cost, Evidence, Finding, ScenarioReport, catalog

DIALECTS = tuple(all_dialects())
RULES = tuple(info.id for info in catalog())

subject_text = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from("|\\`*_[]<>&~$#!@\n\r\x1b\x00\u202e\ud800"),
    ),
    max_size=12,
)
"""Text a subject controls: any character, the troublesome ones often."""


@st.composite
def costs(draw: st.DrawFn) -> Cost:
    child = draw(st.integers(0, 10**9))
    return Cost(draw(st.integers(0, child)), child)


@st.composite
def evidence(draw: st.DrawFn) -> Evidence:
    text = draw(subject_text)
    return Evidence(
        body=draw(subject_text),
        against=draw(st.none() | subject_text),
        offset=draw(st.none() | st.integers(0, 10**9)),
        segment=draw(st.none() | subject_text),
        path=draw(st.none() | subject_text),
        reason=draw(st.none() | subject_text),
        window=Window(text, draw(st.integers(0, len(text)))),
        diff=tuple(draw(st.lists(subject_text, max_size=2))),
    )


@st.composite
def findings(draw: st.DrawFn, rule: str) -> Finding:
    status = draw(st.sampled_from(STATUSES))
    message = draw(subject_text)
    if status == "warning" and draw(st.booleans()):
        message += " (accepted divergence)"
    return Finding(
        rule,
        status,
        message,
        evidence=draw(st.none() | evidence()),
        cost=draw(st.none() | costs()),
    )


@st.composite
def scenario_reports(draw: st.DrawFn) -> tuple[ScenarioReport, ...]:
    """Reports of distinct (scenario, dialect) pairs, every catalog rule judged in each."""
    keys = draw(
        st.lists(
            st.tuples(subject_text.filter(bool), st.sampled_from(DIALECTS)),
            max_size=4,
            unique=True,
        )
    )
    subject = draw(subject_text)
    return tuple(
        ScenarioReport(scenario, dialect, subject, tuple(draw(findings(r)) for r in RULES))
        for scenario, dialect in keys
    )


@st.composite
def runs(draw: st.DrawFn) -> tuple[tuple[ScenarioReport, ...], Expectations]:
    """Reports and expectations for them."""
    reports = draw(scenario_reports())
    return reports, draw(expectations(reports))


@st.composite
def expectations(draw: st.DrawFn, reports: tuple[ScenarioReport, ...]) -> Expectations:
    """Entries for some of the failures of ``reports``, and some that match nothing."""
    failed = [(r, f) for r in reports for f in r.findings if f.status == "fail"]
    chosen = draw(st.lists(st.sampled_from(failed), max_size=3)) if failed else []
    entries = [
        KnownFailure(r.scenario_id, f.rule, draw(subject_text.filter(str.strip)), dialect=r.dialect)
        for r, f in chosen
    ]
    entries += draw(
        st.lists(
            st.builds(
                KnownFailure,
                scenario=st.just("*") | subject_text,
                rule=st.sampled_from(RULES),
                reason=subject_text.filter(str.strip),
                dialect=st.none() | st.sampled_from(DIALECTS),
            ),
            max_size=2,
        )
    )
    return Expectations(tuple(dict.fromkeys(entries)), draw(st.none() | subject_text))
