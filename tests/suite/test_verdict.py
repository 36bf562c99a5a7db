"""One item's verdict, as ``prefix-harness check`` would judge the scenario."""

import pytest

from harness.check import Expectations, KnownFailure, bundled_fixtures
from harness.scenarios import Scenario, load_fixtures
from harness.subjects import Outcome, ReferenceSubject, Subject
from harness.suite import judge
from tests.rules.bad_subjects import CASES

SCENARIOS = {s.id: s for s in load_fixtures(bundled_fixtures())}
FORK = SCENARIOS["fork-ends-model-calls"]
BROKEN = CASES["tool-order"].subject
NONE = Expectations()


def _known(scenario: str, rule: str, **kwargs: str) -> Expectations:
    return Expectations((KnownFailure(scenario, rule, "a reason", **kwargs),), "expect.toml")


def test_a_conforming_subject_passes() -> None:
    assert judge(ReferenceSubject(), FORK, "openai", NONE).status == "pass"


def test_a_failure_is_the_check_report() -> None:
    verdict = judge(BROKEN, FORK, "openai", NONE)
    assert verdict.status == "fail"
    assert verdict.text.startswith("tools-identical: children[0]: tool `")
    assert "\n✗ tools-identical: " in verdict.text
    assert verdict.text.rstrip().endswith("tools-identical, byte-prefix failed — exit 1")


def test_a_failure_says_how_to_rerun_it_and_a_generated_one_is_shrunk() -> None:
    from harness.check import generate
    from harness.scenarios import ACTIONS

    drawn = generate(list(ACTIONS), 3)
    verdict = judge(
        BROKEN,
        drawn[0],
        "openai",
        NONE,
        rerun="pytest --pyargs harness.suite -k x",
        generated=(0, list(ACTIONS), 3, None),
    )
    lines = verdict.text.splitlines()
    assert lines[1] == "rerun: pytest --pyargs harness.suite -k x"
    assert lines[2].startswith("minimal failing generated scenario (openai; fails ")


class Crashing(ReferenceSubject):
    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        raise SystemExit(3)


def test_a_crash_of_the_subject_is_a_failure_with_the_check_report() -> None:
    verdict = judge(Crashing(name="crashing"), FORK, "openai", NONE)
    assert verdict.status == "fail"
    assert "SUBJECT FAILURES (1): crashed, hung or broke the protocol" in verdict.text
    assert verdict.text.rstrip().endswith("— exit 3")


def test_a_scenario_the_subject_cannot_run_is_skipped_saying_why() -> None:
    verdict = judge(ReferenceSubject(), FORK, "klingon", NONE)
    assert verdict.status == "skip"
    assert verdict.text == "the subject reference does not speak klingon"


def test_known_failures_make_an_xfail_with_their_reasons() -> None:
    both = Expectations(
        (*_known("*", "tools-identical").entries, *_known(FORK.id, "byte-prefix").entries)
    )
    verdict = judge(BROKEN, FORK, "openai", both)
    assert verdict.status == "xfail"
    assert verdict.text == "known failure (tools-identical: a reason; byte-prefix: a reason)"


REFERENCE = ReferenceSubject()
OF_TOOL_ORDER = Expectations(
    tuple(
        KnownFailure(FORK.id, r, "why", subject="tool-order")
        for r in ("tools-identical", "byte-prefix")
    )
)


@pytest.mark.parametrize(
    ("subject", "expectations", "status"),
    [
        (BROKEN, _known(FORK.id, "tools-identical"), "fail"),  # byte-prefix is not known
        (REFERENCE, _known("*", "system-identical"), "pass"),  # every scenario: fine here
        (REFERENCE, _known(FORK.id, "system-identical"), "fail"),  # an unexpected pass
        (REFERENCE, _known(FORK.id, "system-identical", subject="someone-else"), "pass"),
        (REFERENCE, _known(FORK.id, "system-identical", dialect="gemini"), "pass"),
        (BROKEN, _known(FORK.id, "tools-identical", dialect="gemini"), "fail"),
        (BROKEN, OF_TOOL_ORDER, "xfail"),  # entries for this subject, by name
    ],
)
def test_which_entries_count_for_an_item(
    subject: Subject, expectations: Expectations, status: str
) -> None:
    assert judge(subject, FORK, "openai", expectations).status == status
