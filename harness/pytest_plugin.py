"""The pytest plugin of prefix-harness, for conformance tests in any project's own suite.

Registered through the ``pytest11`` entry point ``prefix_harness``, it adds:

- ``--prefix-subject SUBJECT``: the implementation under test, ``reference`` (default),
  ``python:package.module:factory`` where ``factory()`` returns a ``Subject``, or
  ``cmd:<command line>`` speaking the subject protocol;
- the ``prefix_subject`` fixture (that subject) and ``prefix_dialect`` (a test that takes it
  runs once per dialect the subject speaks);
- the ``prefix_conformance`` marker, for selecting conformance tests with ``-m``;
- ``assert_prefix_preserved(parent, fork)``, whose failure message is the divergence report;
- ``HeadsSnapshotExtension``, a syrupy extension that pins a subject's assembled request
  heads as reviewable files, ``snapshots/<dialect>/<scenario-id>.json``.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension
from syrupy.location import PyTestLocation
from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SnapshotIndex

from ._bodies import choose_dialect, decode_body, parse_body
from .dialects import ParsedBody
from .prefix import PrefixComparison, compare
from .reports import DiffSubjects, diff_text
from .subjects import LoadedSubject, Outcome, Subject, SubjectStartError, load_subject

__all__ = ["HeadsSnapshotExtension", "assert_prefix_preserved"]

_SUBJECT = pytest.StashKey[LoadedSubject]()
_SUBJECT_FORMS = "reference, python:package.module:factory or cmd:<command line>"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("prefix-harness").addoption(
        "--prefix-subject",
        default="reference",
        metavar="SUBJECT",
        help=f"the implementation under test: {_SUBJECT_FORMS}, where factory() returns a "
        "Subject (default: reference)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "prefix_conformance: a conformance test of request prefixes (prefix-harness); "
        "select with -m prefix_conformance",
    )
    spec = config.getoption("prefix_subject")
    try:
        subject = load_subject(spec)
        subject.start()
    except (ValueError, SubjectStartError) as e:
        raise pytest.UsageError(f"--prefix-subject {spec!r}: {e}") from None
    config.stash[_SUBJECT] = subject


def pytest_unconfigure(config: pytest.Config) -> None:
    subject = config.stash.get(_SUBJECT, None)
    if subject is not None:
        subject.close()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "prefix_dialect" in metafunc.fixturenames:
        dialects = metafunc.config.stash[_SUBJECT].dialects
        metafunc.parametrize("prefix_dialect", dialects, indirect=True, ids=list(dialects))


@pytest.fixture(scope="session")
def prefix_subject(request: pytest.FixtureRequest) -> Subject:
    """The subject under test, chosen with ``--prefix-subject`` (default: the reference)."""
    return request.config.stash[_SUBJECT]


@pytest.fixture
def prefix_dialect(request: pytest.FixtureRequest) -> str:
    """A dialect of the subject under test: the test runs once per dialect."""
    name: str = request.param
    return name


def assert_prefix_preserved(
    parent: bytes | ParsedBody, fork: bytes | ParsedBody, *, dialect: str | None = None
) -> PrefixComparison:
    """Assert that ``fork``'s prefix stream starts with ``parent``'s whole prefix stream.

    Bodies are raw request bytes as POSTed, or already parsed. The dialect is ``dialect``,
    else that of a parsed body, else detected from the bodies. On failure the
    ``AssertionError`` message is the divergence report of ``prefix-harness diff``:
    where the two part, why, both sides in context. Settings are listed, not judged.
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
    comparison = compare(sides["parent"], sides["fork"])
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
