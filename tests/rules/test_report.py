import pytest

from harness.rules import Cost, Finding, ScenarioReport
from harness.rules._report import combine, loses_cache, worst


def test_cost_share_is_of_the_childs_prefix_in_tokens() -> None:
    cost = Cost(tokens=250, prefix_tokens=1000, lost_bytes=1001, child_bytes=4000)
    assert cost.share == pytest.approx(0.25)
    assert cost.loses_cache
    assert Cost(0, 0).share == 0.0
    assert not Cost(0, 10).loses_cache


def test_a_share_never_shows_more_than_the_childs_whole_prefix() -> None:
    """A child shorter than what it loses of its parent (it dropped inherited messages)
    loses all of its own prefix, not more."""
    assert Cost(4001, 4000).share == 1.0
    with pytest.raises(ValueError, match="a cost of -1 tokens out of 10"):
        Cost(-1, 10)
    with pytest.raises(ValueError, match="a cost of -1 bytes out of 10"):
        Cost(1, 10, lost_bytes=-1, child_bytes=10)


def test_real_tokens_are_the_tokens_only_where_counted() -> None:
    assert (Cost(8, 80).real_tokens, Cost(8, 80).encoding) == (None, None)
    counted = Cost(8, 80, exact=True, encoding="o200k_base")
    assert counted.real_tokens == 8


def test_loses_cache_needs_a_cost_of_some_tokens() -> None:
    assert not loses_cache(None)
    assert not loses_cache(Cost(0, 10, cause="settings"))
    assert loses_cache(Cost(1, 10, cause="boundaries"))


def test_worst_takes_the_first_of_the_worst_status() -> None:
    a, b, c = Finding("r", "pass", "a"), Finding("r", "warning", "b"), Finding("r", "warning", "c")
    assert worst([a, b, c]) is b


def test_combine_counts_bodies_sharing_the_worst_status() -> None:
    ok, bad = Finding("r", "pass", "fine"), Finding("r", "fail", "broken")
    assert combine("r", [ok], none="-") is ok
    assert combine("r", [ok, bad, bad], none="-").message == "broken (2 of 3 bodies)"
    assert combine("r", [ok, ok], none="-").message == "fine (all 2 bodies)"
    empty = combine("r", [], none="nothing to check")
    assert (empty.status, empty.message) == ("not-applicable", "nothing to check")


def test_scenario_report_counts_and_lookup() -> None:
    report = ScenarioReport(
        "s", "openai", "ref", (Finding("a", "pass", ""), Finding("b", "not-applicable", ""))
    )
    assert not report.failed
    assert report.counts == {"fail": 0, "warning": 0, "note": 0, "pass": 1, "not-applicable": 1}
    assert report.finding("b").status == "not-applicable"
    with pytest.raises(KeyError):
        report.finding("c")
    failing = ScenarioReport("s", "openai", "ref", (Finding("a", "fail", ""),))
    assert failing.failed


def _plain_combine(rule: str, findings: list[Finding], none: str) -> Finding:
    """``combine`` as written without its fast path: worst, counted, ``replace``."""
    from dataclasses import replace

    if not findings:
        return Finding(rule, "not-applicable", none)
    if len(findings) == 1:
        return findings[0]
    first = worst(findings)
    same = sum(f.status == first.status for f in findings)
    which = "all" if same == len(findings) else f"{same} of"
    return replace(first, message=f"{first.message} ({which} {len(findings)} bodies)")


def test_combine_is_the_plain_combination_on_every_mix_of_statuses() -> None:
    """All alike (the fast path) or mixed, with evidence and costs: the same finding."""
    from itertools import product

    from harness.rules import Evidence
    from harness.rules._report import STATUSES

    made = [
        Finding("r", status, f"m{k}", Evidence(f"children[{k}]"), Cost(k, 9) if k % 2 else None)
        for k, status in enumerate(STATUSES)
    ]
    for n in (1, 2, 3):
        for mix in product(made, repeat=n):
            assert combine("r", list(mix), none="-") == _plain_combine("r", list(mix), "-")


def test_combine_keeps_every_field_of_a_finding_with_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were ``Finding`` to gain a field, the combined finding is built through ``replace``."""
    from dataclasses import dataclass

    from harness.rules import _report

    @dataclass(frozen=True, slots=True)
    class Wider(Finding):
        extra: int = 0

    monkeypatch.setattr(_report, "_FINDING_FIELDS", (*_report._FINDING_FIELDS, "extra"))
    a, b = Wider("r", "pass", "a", extra=7), Wider("r", "pass", "b", extra=8)
    got = combine("r", [a, b], none="-")
    assert type(got) is Wider
    assert (got.message, got.extra) == ("a (all 2 bodies)", 7)
    monkeypatch.undo()  # a subclass alone is enough
    assert combine("r", [a, b], none="-") == Wider("r", "pass", "a (all 2 bodies)", extra=7)


def test_a_finding_loses_cache_only_when_its_cost_loses_bytes() -> None:
    assert not loses_cache(None)
    assert not loses_cache(Cost(0, 100))
    assert loses_cache(Cost(1, 100))
