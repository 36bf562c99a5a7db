"""docs/api.md is true: every example runs as written from a copy of the repository's
examples and prints the output shown after it, its test file passes under pytest, and its
table names the whole of ``harness.__all__``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import harness

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "api.md"
_FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def blocks() -> list[tuple[str, dict[str, str], str, int, int]]:
    """(language, info-string attributes, text, start, end) of every fenced block."""
    found = []
    for m in _FENCE.finditer(DOC.read_text(encoding="utf-8")):
        attrs = dict(w.split("=", 1) for w in m.group(2).split() if "=" in w)
        found.append((m.group(1), attrs, m.group(3), m.start(), m.end()))
    return found


def examples() -> list[tuple[str, str | None]]:
    """Each runnable example with the output shown right after it (None: none shown)."""
    text, found = DOC.read_text(encoding="utf-8"), []
    listed = blocks()
    for i, (lang, attrs, code, _, end) in enumerate(listed):
        if lang != "python" or "file" in attrs:
            continue
        after = listed[i + 1] if i + 1 < len(listed) else None
        shown = after is not None and after[0] == "text" and not text[end : after[3]].strip()
        found.append((code, after[2] if shown and after is not None else None))
    return found


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder holding the repository's examples, where the examples run (and write)."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def test_the_page_has_examples_with_outputs() -> None:
    assert len(examples()) >= 5
    assert all(shown is not None for _, shown in examples())


@pytest.mark.parametrize("index", range(len(examples())))
def test_every_example_prints_what_is_shown(checkout: Path, index: int) -> None:
    code, shown = examples()[index]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown, done.stderr


def test_the_test_file_passes_under_pytest(checkout: Path) -> None:
    ((name, code),) = [(a["file"], c) for lang, a, c, _, _ in blocks() if "file" in a]
    (checkout / name).write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_the_table_names_the_whole_api() -> None:
    table = DOC.read_text(encoding="utf-8").split("| name | what |", 1)[1].split("\n\n", 1)[0]
    cells = [line.split("|")[1] for line in table.splitlines()[2:]]
    named = {re.split(r"\W", n, maxsplit=1)[0] for c in cells for n in re.findall(r"`([^`]+)`", c)}
    assert named == set(harness.__all__)
