"""The conformance suite as pytest items: one per scenario × dialect, with stable ids.

``pytest --pyargs harness.suite`` collects this package; the plugin hands its
``__init__.py`` to ``ConformanceSuite``, which starts the subject (its declaration decides
the items) and yields a collector per fixture file (named after the file) and one for the
generated scenarios (``generated``), each holding an item ``<scenario-id>[<dialect>]`` per
scenario and dialect: the fixtures of the lifecycles the subject declares and the scenarios
``prefix-harness check`` generates for it (``harness.check.generate``), in the dialects
asked for that it declares. Items carry markers for ``-m``:
``prefix_conformance``, ``family_<file stem>`` (``family_generated``),
``lifecycle_<lifecycle>`` and ``dialect_<dialect>`` (``-`` written ``_``). An item of a
known failure (``--prefix-expect``) is marked xfail(strict) with the entry's reason; with an
expectations file the suite also holds ``<file name>::stale``, which fails for entries that
can never match.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..check import ExpectationError, Expectations, KnownFailure, generate, load_expectations
from ..scenarios import ACTIONS, Action, Scenario, ScenarioFormatError, lifecycle_of, load_fixtures
from ..subjects import printable
from ._markers import marker_name
from ._subject import LazySubject, SubjectUnavailable
from ._verdict import Rerun, judge

__all__ = [
    "ConformanceFailure",
    "ConformanceSuite",
    "KnownFailureRaised",
    "SuiteOptions",
]

GENERATED = "generated"


class ConformanceFailure(AssertionError):
    """A scenario item failed; ``str()`` is the report ``prefix-harness check`` prints."""


class KnownFailureRaised(AssertionError):
    """A known failure happened as its entry says: the xfail(strict) marker expects it."""


@dataclass(frozen=True, slots=True)
class SuiteOptions:
    """What the suite is made of, from the command line (or ini)."""

    subject: LazySubject
    dialects: tuple[str, ...] | None
    """The dialects asked for (``--prefix-dialect``); None: every one the subject declares."""
    fixtures: Path
    examples: int
    seed: int | None
    expect: Path | None
    rerun: Rerun | None = None
    """How to run one item again (its options on the command line), for a failure's report."""


def _fixture_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.glob("*.json") if not p.name.endswith(".schema.json"))
    return [path]


class ConformanceSuite(pytest.File):
    """Collects the fixture files and the generated scenarios."""

    def __init__(
        self, *, options: SuiteOptions, left_out: list[str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.options = options
        self.left_out: list[str] = [] if left_out is None else left_out
        """What the subject's declaration keeps out of the suite, a sentence each (the
        plugin says them when collection ends)."""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        o = self.options
        expectations = Expectations()
        if o.expect is not None:
            try:
                expectations = load_expectations(o.expect)
            except ExpectationError as e:
                raise self.CollectError(f"--prefix-expect: {e}") from None
        try:  # what the subject declares decides the items: it starts here
            subject = o.subject.get()
        except SubjectUnavailable as e:
            raise self.CollectError(str(e)) from None
        dialects = tuple(d for d in (o.dialects or subject.dialects) if d in subject.dialects)
        lifecycles = set(subject.lifecycles)
        lacking = [d for d in (o.dialects or ()) if d not in subject.dialects]
        if lacking:
            self.left_out.append(
                f"the subject {subject.name} declares no {', '.join(lacking)} dialect: its"
                " items are not collected"
            )
        groups: list[tuple[str, Sequence[Scenario]]] = []
        try:
            files = _fixture_files(o.fixtures)
            if not files:
                raise ScenarioFormatError(str(o.fixtures), "holds no fixture files (*.json)")
            every = [(f.name, load_fixtures(f)) for f in files]
        except ScenarioFormatError as e:
            raise self.CollectError(f"--prefix-fixtures: {e}") from None
        # an expectation names any fixture as check's do, those the subject cannot run too
        ids = {s.id for _, scenarios in every for s in scenarios}
        others = sorted({s.lifecycle for _, found in every for s in found} - lifecycles)
        if others:
            count = sum(s.lifecycle not in lifecycles for _, found in every for s in found)
            self.left_out.append(
                f"the subject {subject.name} declares no {' or '.join(others)} lifecycle:"
                f" {count} fixture scenarios of it are not collected"
            )
        for name, loaded in every:
            groups.append((name, [s for s in loaded if s.lifecycle in lifecycles]))
        actions = [a for a in ACTIONS if lifecycle_of(a) in lifecycles]
        groups.append((GENERATED, generate(actions, o.examples, o.seed) if dialects else ()))
        for name, scenarios in groups:
            ids.update(s.id for s in scenarios)
            if scenarios and dialects:
                yield ScenarioGroup.from_parent(
                    self,
                    name=name,
                    scenarios=scenarios,
                    expectations=expectations,
                    dialects=dialects,
                    actions=tuple(actions),
                )
        if o.expect is not None:
            yield StaleExpectations.from_parent(
                self,
                name=f"{o.expect.name}::stale",
                expectations=expectations,
                ids=ids,
                dialects=dialects,
            )


class ScenarioGroup(pytest.Collector):
    """The items of one fixture file (or of the generated scenarios)."""

    def __init__(
        self,
        *,
        scenarios: Sequence[Scenario],
        expectations: Expectations,
        dialects: tuple[str, ...],
        actions: tuple[Action, ...],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.scenarios = scenarios
        self.expectations = expectations
        self.dialects = dialects
        self.actions = actions

    def collect(self) -> Iterator[ScenarioItem]:
        options: SuiteOptions = self.parent.options  # type: ignore[union-attr]
        family = GENERATED if self.name == GENERATED else Path(self.name).stem
        for i, scenario in enumerate(self.scenarios):
            # generated ids repeat (the strategy names its scenarios by shape): number them
            base = f"{i:02d}-{scenario.id}" if family == GENERATED else scenario.id
            for dialect in self.dialects:
                name = f"{base}[{dialect}]"
                item = ScenarioItem.from_parent(
                    self,
                    name=name,
                    scenario=scenario,
                    dialect=dialect,
                    subject=options.subject,
                    expectations=self.expectations,
                    generated=i if family == GENERATED else None,
                    actions=self.actions,
                )
                item.add_marker("prefix_conformance")
                item.add_marker(marker_name("family", family))
                item.add_marker(marker_name("lifecycle", scenario.lifecycle))
                item.add_marker(marker_name("dialect", dialect))
                known = _known(self.expectations, scenario.id, dialect)
                if known:
                    reason = "; ".join(f"{e.rule}: {e.reason}" for e in known)
                    item.add_marker(
                        pytest.mark.xfail(reason=reason, strict=True, raises=KnownFailureRaised)
                    )
                yield item


def _known(expectations: Expectations, scenario: str, dialect: str) -> list[KnownFailure]:
    """Entries that name this scenario and fit every subject: known before it starts."""
    return [
        e
        for e in expectations.entries
        if e.scenario == scenario and e.subject is None and e.dialect in (None, dialect)
    ]


def _subject(lazy: LazySubject) -> Any:
    try:
        return lazy.get()
    except SubjectUnavailable as e:
        error = str(e)
    pytest.fail(error, pytrace=False)


class ScenarioItem(pytest.Item):
    """One scenario in one dialect, judged by every rule."""

    def __init__(
        self,
        *,
        scenario: Scenario,
        dialect: str,
        subject: LazySubject,
        expectations: Expectations,
        generated: int | None = None,
        actions: tuple[Action, ...] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.dialect = dialect
        self.subject = subject
        self.expectations = expectations
        self.generated = generated
        self.actions = actions

    def runtest(self) -> None:
        options: SuiteOptions = self.parent.parent.options  # type: ignore[union-attr]
        rerun = options.rerun
        group = self.parent.name if self.parent is not None else ""
        verdict = judge(
            _subject(self.subject),
            self.scenario,
            self.dialect,
            self.expectations,
            rerun=None if rerun is None else rerun.of(group, self.name),
            generated=None
            if self.generated is None
            else (self.generated, self.actions, options.examples, options.seed),
        )
        if verdict.status == "fail":
            raise ConformanceFailure(verdict.text)
        if verdict.status == "skip":
            pytest.skip(printable(verdict.text))
        if verdict.status == "xfail":
            if self.get_closest_marker("xfail") is not None:
                raise KnownFailureRaised(verdict.text)
            pytest.xfail(printable(verdict.text))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ConformanceFailure | KnownFailureRaised):
            return str(excinfo.value).rstrip("\n")
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # the name alone: pytest's -v line writes a dot of the domain as "::"
        return self.path, None, self.name


class StaleExpectations(pytest.Item):
    """Fails for expectations entries that can never match in the suite (a scenario id it
    does not have, a dialect it does not check), as ``check --expect`` reports them."""

    def __init__(
        self,
        *,
        expectations: Expectations,
        ids: set[str],
        dialects: tuple[str, ...],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.expectations = expectations
        self.ids = ids
        self.dialects = dialects
        self.add_marker("prefix_conformance")

    def runtest(self) -> None:
        options: SuiteOptions = self.parent.options  # type: ignore[union-attr]
        subject = _subject(options.subject)
        stale = self.expectations.never_matching(
            scenarios=self.ids, dialects=self.dialects, subject=subject.name
        )
        if stale:
            lines = [
                f"UNEXPECTED PASSES ({len(stale)}): remove these from {self.expectations.source}",
                *(
                    f"  {printable(f'{where} · {e.rule}: expected to fail ({e.reason})')}"
                    for e, where in stale
                ),
            ]
            raise ConformanceFailure("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ConformanceFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name
