"""load_subject: reference, python:module:factory and cmd:<command line>, with one clear
ValueError for every bad spelling."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from harness.subjects import (
    InProcessSubject,
    LoadedSubject,
    ReferenceSubject,
    SubprocessOptions,
    SubprocessSubject,
    load_subject,
)

NOT_CALLABLE = 42


def reference() -> ReferenceSubject:
    return ReferenceSubject(name="from-factory")


def raising() -> ReferenceSubject:
    raise RuntimeError("no config")


def wrong_type() -> object:
    return object()


class Factories:
    make = staticmethod(reference)


HERE = "tests.subjects.test_load"


def test_reference_is_the_bundled_implementation_in_process() -> None:
    subject = load_subject("reference")
    assert isinstance(subject, InProcessSubject)
    assert isinstance(subject.subject, ReferenceSubject)
    assert isinstance(subject, LoadedSubject)


@pytest.mark.parametrize("attribute", ["reference", "Factories.make"])
def test_python_calls_the_factory(attribute: str) -> None:
    subject = load_subject(f"python:{HERE}:{attribute}")
    assert isinstance(subject, InProcessSubject)
    assert subject.name == "from-factory"


def test_python_finds_modules_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_subject_here.py").write_text(
        "from harness.subjects import ReferenceSubject\n"
        "def make():\n    return ReferenceSubject(name='mine')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "my_subject_here", raising=False)
    assert load_subject("python:my_subject_here:make").name == "mine"
    assert str(tmp_path) not in sys.path


def test_cmd_is_split_like_a_shell_and_takes_the_options() -> None:
    options = SubprocessOptions(timeout=3)
    subject = load_subject(f"cmd:{sys.executable} 'a b.py' --x", options=options)
    assert isinstance(subject, SubprocessSubject)
    assert subject.argv == (sys.executable, "a b.py", "--x")
    assert subject.options is options
    assert subject.pid is None  # nothing started yet


def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str) -> None:
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, name, raising=False)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("", "no subject given; use reference, python:package.module:factory or cmd:"),
        ("node:x.js", "unknown subject 'node:x.js'; use reference"),
        ("references", "unknown subject 'references'"),
        ("python:", "write python:package.module:factory"),
        ("python:tests.subjects.test_load", "write python:package.module:factory"),
        ("python:no_such_module_xyz:make", "no module named 'no_such_module_xyz'"),
        ("python:tests.no_such_module:make", "no module named 'tests.no_such_module'"),
        (f"python:{HERE}:missing", f"module '{HERE}' has no attribute 'missing'"),
        (f"python:{HERE}:NOT_CALLABLE", "NOT_CALLABLE is a int, not a callable factory"),
        (f"python:{HERE}:raising", "raising() raised RuntimeError: no config"),
        (f"python:{HERE}:wrong_type", "wrong_type() returned a object, not a Subject"),
        ("cmd:", "the command line is empty"),
        ("cmd:  ", "the command line is empty"),
        ("cmd:'unclosed", "cannot split the command line (No closing quotation)"),
        ("cmd:no-such-program-xyz --flag", "'no-such-program-xyz' is not a command on PATH"),
        ("cmd:./no/such/subject.js", "no such file './no/such/subject.js'"),
    ],
)
def test_bad_specs_are_one_clear_value_error(spec: str, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        load_subject(spec)


def test_a_module_that_fails_to_import_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _module(tmp_path, monkeypatch, "needs_a_dep_xyz", "import not_installed_xyz\n")
    with pytest.raises(ValueError, match="importing 'needs_a_dep_xyz' failed: No module named"):
        load_subject("python:needs_a_dep_xyz:make")
    _module(tmp_path, monkeypatch, "broken_syntax_xyz", "def (:\n")
    with pytest.raises(ValueError, match="importing 'broken_syntax_xyz' failed: SyntaxError"):
        load_subject("python:broken_syntax_xyz:make")


def test_a_file_that_is_not_executable_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "subject.sh"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(ValueError, match="is not executable"):
        load_subject(f"cmd:{script}")


@pytest.mark.parametrize(
    ("factory", "problem"),
    [
        ("exiting_factory", "exiting_factory() raised SystemExit(0)"),
        ("exiting_name", "reading it raised SystemExit(0)"),
        ("exiting_dialects", "reading it raised SystemExit(0)"),
        ("exiting_lifecycles", "reading it raised SystemExit(0)"),
    ],
)
def test_a_subject_that_exits_while_loading_is_a_value_error(factory: str, problem: str) -> None:
    # left alone, sys.exit(0) would end the harness with exit 0 and no report
    with pytest.raises(ValueError, match=re.escape(problem)):
        load_subject(f"python:tests.subjects.exiting_subjects:{factory}")


def test_a_module_that_exits_as_it_is_imported_is_a_value_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _module(tmp_path, monkeypatch, "exits_on_import_xyz", "import sys\nsys.exit(0)\n")
    with pytest.raises(ValueError, match=re.escape("raised SystemExit(0)")):
        load_subject("python:exits_on_import_xyz:make")
