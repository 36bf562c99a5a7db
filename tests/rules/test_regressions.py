"""The harness catches every regression class (the README's 19, and those seen in the
field since), and the reference raises no alarm.

The README's 19 classes are spelled out here a second time, on purpose: dropping one from the
registry of known-bad subjects (or from the catalog's reach) fails this file. A class seen in
the field is tied to its public bugs by the catalog (tests/rules/test_catalog.py).
"""

import pytest

from harness.prefix import common_prefix_length
from harness.rules import catalog

from . import bad_subjects
from .bad_subjects import ALL_CASES, CASES, FIELD_CASES, GOOD_MARKERS, Mutant
from .scenarios import SCENARIOS
from .support import DIALECTS, REFERENCE, context, outcome, report

DOCUMENTED_CLASSES = (
    "tool order not fixed",
    "tool set churn",
    "JSON key order drift",
    "timestamp or date in the system prompt",
    "environment values in the head",
    "mutable memory spliced into the system prompt",
    "byte drift in old messages",
    "history rebuilt differently on resume",
    "a child identity or system section differing from the parent's",
    "thinking/effort changed in the child",
    "model switched",
    "history rewritten before the fork point",
    "thinking blocks stripped",
    "images pruned or toggled",
    "cache markers placed on a volatile trailing block",
    "gateway-style reshaping",
    "tool_choice or structured-output schema changed in the child",
    "placeholder responses differing between siblings",
    "child-only text placed in the system prompt or before the inherited history",
)

RUNS = [
    pytest.param(key, scenario, dialect, id=f"{key}-{scenario}-{dialect}")
    for key, case in ALL_CASES.items()
    for scenario in case.scenarios
    for dialect in case.dialects
]
STREAM_RULES = ("byte-prefix", "siblings-shared", "append-only")
"""Rules whose evidence offset is where two whole prefix streams part."""
ACCEPTED = {"continuable-filtered", "continuable-persona", "continuable-structured"}


def test_the_registry_has_one_bad_subject_per_class() -> None:
    assert len(DOCUMENTED_CLASSES) == len(set(DOCUMENTED_CLASSES)) == 19
    assert bad_subjects.DOCUMENTED_CLASSES == DOCUMENTED_CLASSES
    classes = bad_subjects.CLASSES
    assert classes == DOCUMENTED_CLASSES + bad_subjects.FIELD_CLASSES
    assert len(classes) == len(set(classes))
    covered = [
        case.documented_class for case in CASES.values() if case.documented_class is not None
    ]
    assert set(covered) == set(DOCUMENTED_CLASSES)
    assert all(case.documented_class in (None, *DOCUMENTED_CLASSES) for case in ALL_CASES.values())
    fielded = [c.field_class for c in ALL_CASES.values() if c.field_class is not None]
    assert set(fielded) == set(bad_subjects.FIELD_CLASSES)
    assert not any(c.documented_class and c.field_class for c in ALL_CASES.values())
    assert not set(CASES) & set(FIELD_CASES)
    for name in classes:
        # a class judged differently by cache effect is split by dialect, never doubled
        runs = [d for c in ALL_CASES.values() if c.regression_class == name for d in c.dialects]
        assert len(runs) == len(set(runs)), name


def test_every_class_pins_its_evidence_in_every_dialect_it_runs_in() -> None:
    for case in ALL_CASES.values():
        if case.regression_class is not None:
            assert set(case.where) == set(case.dialects), case.subject.name


def test_every_rule_is_expected_to_catch_some_bad_subject() -> None:
    assert {case.rule for case in ALL_CASES.values()} == {r.id for r in catalog()}


@pytest.mark.parametrize(("key", "scenario", "dialect"), RUNS)
def test_each_bad_subject_is_caught_by_its_rule(key: str, scenario: str, dialect: str) -> None:
    case = ALL_CASES[key]
    result = report(case.subject, scenario, dialect)
    found = result.finding(case.rule)
    assert found.status == case.status, found.message
    for rule in case.also_passes:
        assert result.finding(rule).status == "pass", result.finding(rule).message
    for rule in case.also_fails:
        assert result.finding(rule).status == "fail", result.finding(rule).message
    assert found.evidence is not None
    e = found.evidence
    if dialect in case.where:
        assert (e.segment, e.path) == case.where[dialect]
    if e.offset is None or e.body == "outcome":
        return
    ctx = context(case.subject, scenario, dialect)
    bodies = {
        b.label: b for b in (ctx.parent, *ctx.children, *ctx.follow_ups, ctx.parent_next) if b
    }
    body = bodies[e.body]
    if e.segment is not None:
        index = body.frame_index(e.segment)
        assert index is not None
        assert body.frames[index].start <= e.offset < body.frames[index].end
    if case.rule in STREAM_RULES:
        against = bodies[e.against or ""]
        assert e.offset == common_prefix_length(bytes(against.stream), bytes(body.stream))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_reference_raises_no_false_alarm(dialect: str) -> None:
    for scenario in SCENARIOS:
        for f in report(REFERENCE, scenario.id, dialect).findings:
            assert f.status != "fail", (scenario.id, f.rule, f.message)
            if f.status == "warning":
                assert scenario.id in ACCEPTED, (scenario.id, f.rule, f.message)
                assert f.rule in ("system-identical", "tools-identical", "byte-prefix")


def test_every_rule_has_a_passing_case() -> None:
    passing = {
        f.rule
        for scenario in SCENARIOS
        for dialect in DIALECTS
        for f in report(REFERENCE, scenario.id, dialect).findings
        if f.status in ("pass", "note")
    }
    passing |= {
        f.rule
        for f in report(GOOD_MARKERS, "fork-model-calls", "anthropic").findings
        if f.status == "pass"
    }
    assert passing == {r.id for r in catalog()}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_wrapper_alone_changes_no_byte(dialect: str) -> None:
    same = Mutant("identity", child=lambda request, scenario, i: request)
    for scenario in ("fork-model-calls", "siblings", "continuable-structured"):
        assert outcome(same, scenario, dialect) == outcome(REFERENCE, scenario, dialect)
