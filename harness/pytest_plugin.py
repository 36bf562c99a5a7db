"""The pytest plugin of prefix-harness, for conformance tests in any project's own suite.

Registered through the ``pytest11`` entry point ``prefix_harness``, it adds (docs/pytest.md):

- ``--prefix-subject SUBJECT`` (ini ``prefix_subject``): the implementation under test,
  ``reference`` (default), ``python:package.module:factory`` where ``factory()`` returns a
  ``Subject``, or ``cmd:<command line>`` speaking the subject protocol. It is started at its
  first use, once per process (once per pytest-xdist worker), and closed at the session's end:
  ``--help``, ``--co`` and tests that never take it start nothing;
- the ``prefix_subject`` fixture (that subject) and ``prefix_dialect`` (a test that takes it
  runs once per dialect of ``--prefix-dialect``, default all; session-scoped, so ``@given``
  tests may take it);
- the ``prefix_conformance`` marker, for selecting conformance tests with ``-m``;
- ``assert_conforms(scenario, outcome)``, which runs every rule and fails with the report,
  and ``assert_prefix_preserved(parent, fork)``, whose failure message is the divergence
  report;
- the conformance suite as pytest items, ``pytest --pyargs harness.suite`` (``harness.suite``),
  with ``--prefix-examples``, ``--prefix-seed``, ``--prefix-fixtures`` and ``--prefix-expect``;
  a run whose suite items were all skipped checked nothing and exits 5, never 0;
- ``HeadsSnapshotExtension``, a syrupy extension that pins a subject's assembled request
  heads as reviewable files, ``snapshots/<dialect>/<scenario-id>.json``.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension
from syrupy.location import PyTestLocation
from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SnapshotIndex

from ._bodies import choose_dialect, decode_body, parse_body
from .dialects import ParsedBody, all_dialects
from .prefix import PrefixComparison, compare
from .protocol import Outcome, Subject
from .reports import DiffSubjects, diff_text
from .rules import LIFECYCLES
from .scenarios import Scenario
from .subjects import SubprocessOptions, printable, timeout_problem

if TYPE_CHECKING:
    from .rules import ScenarioReport
    from .suite import LazySubject

__all__ = ["HeadsSnapshotExtension", "assert_conforms", "assert_prefix_preserved"]

_LAZY: pytest.StashKey[LazySubject] = pytest.StashKey()
_SUBJECT_FORMS = "reference, python:package.module:factory or cmd:<command line>"
_SUITE = Path(__file__).resolve().parent / "suite" / "__init__.py"
_SUITE_ID = "harness.suite"
"""The suite's node id, wherever the package is installed: items are
``harness.suite::<fixture-file>::<scenario-id>[<dialect>]``."""
_FAMILIES = ("continuable", "degradation", "found", "oneshot", "recursion", "siblings", "spawn")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is less than 0")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    problem = timeout_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text} {problem}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("prefix-harness", "prefix-harness (docs/pytest.md)")
    group.addoption(
        "--prefix-subject",
        default=None,
        metavar="SUBJECT",
        help=f"the implementation under test: {_SUBJECT_FORMS}, where factory() returns a "
        "Subject; started at its first use (default: the prefix_subject ini value, else "
        "reference)",
    )
    group.addoption(
        "--prefix-dialect",
        action="append",
        choices=list(all_dialects()),
        metavar="DIALECT",
        help=f"a dialect to test (repeat for several; default: all of {', '.join(all_dialects())})",
    )
    group.addoption(
        "--prefix-timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="per scenario, for a cmd: subject (default: 10)",
    )
    group.addoption(
        "--prefix-examples",
        type=_count,
        default=25,
        metavar="N",
        help="generated scenarios in the harness.suite items, each in every dialect (default: 25)",
    )
    group.addoption(
        "--prefix-seed",
        type=int,
        default=None,
        metavar="N",
        help="vary the generated scenarios of harness.suite (default: derandomized)",
    )
    group.addoption(
        "--prefix-fixtures",
        type=Path,
        default=None,
        metavar="PATH",
        help="a fixture file or folder for harness.suite (default: the bundled corpus)",
    )
    group.addoption(
        "--prefix-expect",
        type=Path,
        default=None,
        metavar="FILE",
        help="known failures (TOML, as for check --expect): harness.suite items that xfail",
    )
    parser.addini(
        "prefix_subject",
        f"the implementation under test, as --prefix-subject ({_SUBJECT_FORMS})",
        default="reference",
    )


def _spec(config: pytest.Config) -> str:
    spec = config.getoption("prefix_subject")
    return str(spec if spec is not None else config.getini("prefix_subject"))


def _dialects(config: pytest.Config) -> tuple[str, ...]:
    return tuple(dict.fromkeys(config.getoption("prefix_dialect") or all_dialects()))


def pytest_configure(config: pytest.Config) -> None:
    from .suite import LazySubject, marker_name

    markers = {
        "prefix_conformance": "a conformance test of request prefixes (prefix-harness); "
        "select with -m prefix_conformance",
        **{
            marker_name("dialect", d): f"a harness.suite item in the {d} dialect"
            for d in all_dialects()
        },
        **{
            marker_name("lifecycle", lc): f"a harness.suite item of a {lc} scenario"
            for lc in LIFECYCLES
        },
        **{
            marker_name("family", f): f"a harness.suite item of the {f} fixtures"
            for f in (*_FAMILIES, "generated")
        },
    }
    for name, text in markers.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    timeout = config.getoption("prefix_timeout")
    options = None if timeout is None else SubprocessOptions(timeout=timeout)
    config.stash[_LAZY] = LazySubject(_spec(config), options)
    config.pluginmanager.register(_Tally(), "prefix-harness-tally")


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [
        f"prefix-harness: subject {_spec(config)} (started at first use), "
        f"dialects {', '.join(_dialects(config))}"
    ]


class _Tally:
    """Suite items seen and checked (not skipped), counted where their reports arrive: in
    the process that runs them, or in the pytest-xdist controller. A run of suite items that
    checked none is no verdict: it exits 5, pytest's "no tests", not 0, as ``check`` exits 4
    for it."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.checked: set[str] = set()

    @property
    def inconclusive(self) -> bool:
        return bool(self.seen) and not self.checked

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.nodeid.startswith(f"{_SUITE_ID}::"):
            return
        self.seen.add(report.nodeid)
        if report.when == "call" and (not report.skipped or hasattr(report, "wasxfail")):
            self.checked.add(report.nodeid)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.inconclusive and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.inconclusive:
            terminalreporter.write_line(
                f"prefix-harness: INCONCLUSIVE, none of the {len(self.seen)} harness.suite "
                "items was checked (every one was skipped): exit 5",
                red=True,
            )


_LATE = pytest.StashKey[tuple[str, ...]]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop the subject as ``check`` does: what a process subject wrote after its last reply
    is its failure, and fails a run that would pass."""
    lazy = session.config.stash.get(_LAZY, None)
    if lazy is None:
        return
    failures = lazy.close()
    if failures:
        session.config.stash[_LATE] = tuple(printable(f.report()) for f in failures)
        if exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    late = config.stash.get(_LATE, ())
    if late:
        terminalreporter.write_line(
            f"prefix-harness: SUBJECT FAILURES ({len(late)}) when the subject was stopped:",
            red=True,
        )
        for report in late:
            terminalreporter.write_line(f"  {report}")


def pytest_unconfigure(config: pytest.Config) -> None:
    lazy = config.stash.get(_LAZY, None)
    if lazy is not None:
        lazy.close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """``harness/suite/__init__.py`` is the conformance suite (``--pyargs harness.suite``)."""
    if file_path.name != "__init__.py" or file_path.resolve() != _SUITE:
        return None
    from .check import bundled_fixtures
    from .suite import ConformanceSuite, SuiteOptions

    config = parent.config
    options = SuiteOptions(
        subject=config.stash[_LAZY],
        dialects=_dialects(config),
        fixtures=config.getoption("prefix_fixtures") or bundled_fixtures(),
        examples=config.getoption("prefix_examples"),
        seed=config.getoption("prefix_seed"),
        expect=config.getoption("prefix_expect"),
    )
    suite: pytest.Collector = ConformanceSuite.from_parent(
        parent, path=file_path, name=_SUITE_ID, nodeid=_SUITE_ID, options=options
    )
    return suite


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "prefix_dialect" in metafunc.fixturenames:
        dialects = _dialects(metafunc.config)
        metafunc.parametrize(
            "prefix_dialect", dialects, indirect=True, ids=list(dialects), scope="session"
        )


def _started(config: pytest.Config) -> Subject:
    from .suite import SubjectUnavailable

    try:
        return config.stash[_LAZY].get()
    except SubjectUnavailable as e:
        error = str(e)
    pytest.fail(error, pytrace=False)  # outside the except: no "during handling" chain


@pytest.fixture(scope="session")
def prefix_subject(request: pytest.FixtureRequest) -> Subject:
    """The subject under test, chosen with ``--prefix-subject`` (default: the reference),
    started at its first use in this process."""
    return _started(request.config)


@pytest.fixture(scope="session")
def prefix_dialect(request: pytest.FixtureRequest) -> str:
    """A dialect of ``--prefix-dialect`` (default: all): the test runs once per dialect, and
    is skipped in one the subject does not speak. Session-scoped, so ``@given`` may use it."""
    name: str = request.param
    subject = _started(request.config)
    if name not in subject.dialects:
        pytest.skip(f"the subject {subject.name} does not speak {name}")
    return name


def assert_conforms(
    scenario: Scenario, outcome: Outcome, *, dialect: str | None = None, subject: str = "subject"
) -> ScenarioReport:
    """Assert that every rule holds on ``outcome``, what a subject gave for ``scenario``.

    The dialect is ``dialect``, else detected from the outcome's bodies. Returns the report;
    on a failed rule the ``AssertionError`` message is the report of ``prefix-harness rules``
    text: one line per rule, each failure with its evidence and cost.
    """
    __tracebackhide__ = True
    from .reports import rules_text
    from .rules import EvaluationError, evaluate

    if dialect is None:
        heads = (outcome.parent, *outcome.children, *outcome.follow_ups, outcome.parent_next)
        bodies = {f"body {i}": b for i, b in enumerate(heads) if b is not None}
        if not bodies:
            raise ValueError("the outcome holds no body to tell its dialect by: give dialect=")
        raw = {k: decode_body(v, source=k) for k, v in bodies.items()}
        dialect = choose_dialect(raw)[0].name
    try:
        report = evaluate(scenario, dialect, outcome, subject=subject)
    except EvaluationError as e:
        raise AssertionError(f"the harness cannot evaluate the bodies: {e}") from None
    if report.failed:
        raise AssertionError(rules_text([report]))
    return report


def assert_prefix_preserved(
    parent: bytes | ParsedBody,
    fork: bytes | ParsedBody,
    *,
    dialect: str | None = None,
    strict_bytes: bool = False,
) -> PrefixComparison:
    """Assert that ``fork``, sent right after ``parent``, loses none of the parent's cached
    prefix (``strict_bytes``: that its bytes as sent start with the parent's whole prefix),
    as ``prefix-harness diff`` judges it.

    Bodies are raw request bytes as POSTed, or already parsed. The dialect is ``dialect``,
    else that of a parsed body, else detected from the bodies. On failure the
    ``AssertionError`` message is the divergence report of ``prefix-harness diff``:
    where the two part, why, both sides in context, what the cache reads. Settings the cache
    is not keyed on are listed, not judged.
    """
    __tracebackhide__ = True
    bodies = {"parent": parent, "fork": fork}
    parsed = {k: v for k, v in bodies.items() if isinstance(v, ParsedBody)}
    raw = {k: decode_body(v, source=k) for k, v in bodies.items() if not isinstance(v, ParsedBody)}
    names = {p.dialect.name for p in parsed.values()}
    if dialect is None and len(names) > 1:
        raise ValueError("the parent and the fork were parsed in different dialects")
    chosen, guessed = choose_dialect(raw, name=dialect or (names.pop() if names else None))
    for k, p in parsed.items():
        if p.dialect.name != chosen.name:
            raise ValueError(f"the {k} was parsed as {p.dialect.name}, not {chosen.name}")
    sides = {**{k: parse_body(chosen, v, source=k) for k, v in raw.items()}, **parsed}
    comparison = compare(sides["parent"], sides["fork"], strict=strict_bytes)
    if not comparison.preserved:
        raise AssertionError(diff_text(comparison, DiffSubjects("parent", "fork", guessed)))
    return comparison


def _json_body(body: bytes | None) -> Any:
    return None if body is None else orjson.loads(body)


class HeadsSnapshotExtension(SingleFileSnapshotExtension):
    """Syrupy snapshots of an ``Outcome``'s request heads, one JSON file per scenario and dialect.

    Use ``snapshot.use_extension(HeadsSnapshotExtension)(name=f"{dialect}/{scenario.id}")``;
    the file is ``<rootdir>/snapshots/<dialect>/<scenario-id>.json`` (``directory`` sets the
    folder). It holds the status, the message and every body as JSON with the body's own
    key order (key order is what a prefix depends on), indented, ending in a newline, and
    byte-identical on every run and machine, so a pull request's diff shows what changed.
    """

    file_extension = "json"
    directory = "snapshots"

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> bytes:
        if not isinstance(data, Outcome):
            raise TypeError(f"HeadsSnapshotExtension pins an Outcome, not a {type(data).__name__}")
        heads = {
            "status": data.status,
            "message": data.message,
            "parent": _json_body(data.parent),
            "children": [_json_body(b) for b in data.children],
            "follow_ups": [_json_body(b) for b in data.follow_ups],
            "parent_next": _json_body(data.parent_next),
        }
        return orjson.dumps(heads, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(test_location.item.config.rootpath / cls.directory)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        parts = index.split("/") if isinstance(index, str) else []
        if len(parts) != 2 or not all(parts) or any(p in (".", "..") for p in parts):
            raise ValueError(
                f"HeadsSnapshotExtension needs name='<dialect>/<scenario-id>', not {index!r}"
            )
        return str(index)

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: SnapshotIndex) -> str:
        return cls.get_snapshot_name(test_location=test_location, index=index)

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        return Path(snapshot_location).is_relative_to(cls.dirname(test_location=test_location))

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        """The file's one snapshot, named ``<dialect>/<scenario-id>`` after its path."""
        path = Path(snapshot_location)
        collection = SnapshotCollection(location=snapshot_location)
        collection.add(Snapshot(name=f"{path.parent.name}/{path.stem}"))
        return collection

    @classmethod
    def write_snapshot(cls, **kwargs: Any) -> None:
        """Syrupy's write, without its warning that a name does not contain the test's name:
        these snapshots are named after scenarios, not tests, on purpose."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="\\s*Can not relate snapshot name")
            super().write_snapshot(**kwargs)

    def diff_lines(self, serialized_data: SerializableData, snapshot_data: SerializableData) -> Any:
        """A line diff of the JSON text (syrupy would compare the bytes' one-line repr)."""
        return super().diff_lines(_text(serialized_data), _text(snapshot_data))


def _text(data: SerializableData) -> SerializableData:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data
