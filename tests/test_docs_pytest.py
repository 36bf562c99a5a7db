"""docs/pytest.md is true: its files run as written in a project of their own, its commands
are accepted and collect, its header is the plugin's, and its tables of options and markers
are the plugin's own."""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from harness.check import bundled_fixtures, load_expectations

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "pytest.md"
_FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
PLUGINS = ("-p", "harness.pytest_plugin", "-p", "hypothesis.extra.pytestplugin", "-p", "xdist")


def blocks() -> list[tuple[str, dict[str, str], str]]:
    """(language, info-string attributes, text) of every fenced block."""
    found = []
    for match in _FENCE.finditer(DOC.read_text(encoding="utf-8")):
        attrs = dict(w.split("=", 1) for w in match.group(2).split() if "=" in w)
        found.append((match.group(1), attrs, match.group(3)))
    return found


def files() -> dict[str, tuple[dict[str, str], str]]:
    return {a["file"]: (a, text) for _, a, text in blocks() if "file" in a}


def commands() -> list[str]:
    lines = [line for lang, _, text in blocks() if lang == "sh" for line in text.splitlines()]
    return [line.split("#")[0].strip() for line in lines if line.startswith("pytest ")]


@pytest.fixture
def bare(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """An empty project; plugins loaded by name, not autoloaded."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


@pytest.fixture
def project(bare: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project holding every file of the page."""
    pytester = bare
    monkeypatch.setenv("PYTHONPATH", os_pathsep_join(pytester.path, ROOT))
    for name, (_, text) in files().items():
        (pytester.path / name).write_text(text, encoding="utf-8")
    pytester.syspathinsert()
    return pytester


def os_pathsep_join(*paths: Path) -> str:
    return os.pathsep.join(str(p) for p in paths)


TESTS = [name for name, (attrs, _) in files().items() if "outcome" in attrs]


def test_the_page_has_tests_and_commands() -> None:
    assert len(TESTS) >= 3
    assert len(commands()) >= 5
    assert {"pytest.ini", "my_subject.py", "known-failures.toml"} <= set(files())


@pytest.mark.parametrize("name", TESTS)
def test_every_test_file_passes_as_written(project: pytest.Pytester, name: str) -> None:
    assert files()[name][0]["outcome"] == "passed"
    result = project.runpytest(*PLUGINS, name)
    outcomes = result.parseoutcomes()
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert outcomes.get("passed", 0) > 0
    assert set(outcomes) <= {"passed", "warnings"}


@pytest.mark.parametrize("command", commands())
def test_every_command_is_accepted_and_collects(project: pytest.Pytester, command: str) -> None:
    args = shlex.split(command)[1:]
    # collected only, with few generated scenarios (a later option wins: the command's parse)
    result = project.runpytest(*PLUGINS, *args, "--co", "-q", "--prefix-examples", "2")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert any(line.startswith("harness.suite::") for line in result.outlines)


def test_the_protocol_adapter_runs_as_a_cmd_subject(project: pytest.Pytester) -> None:
    command = next(c for c in commands() if "cmd:python3 my_subject_server.py" in c)
    args = [a for a in shlex.split(command)[1:] if a not in ("-n", "auto")]
    result = project.runpytest(*PLUGINS, *args, "-m", "family_spawn", "--prefix-examples", "0")
    result.assert_outcomes(passed=2 * 4)


def test_the_header_is_the_plugins(bare: pytest.Pytester) -> None:
    (text,) = [t for lang, _, t in blocks() if lang == "text" and t.startswith("prefix-harness: ")]
    bare.makepyfile("def test_nothing(): pass")
    result = bare.runpytest("-p", "harness.pytest_plugin", "--co")
    assert text.strip() in result.outlines


def _table(heading: str) -> list[list[str]]:
    """The body rows (cells) of the first table after ``heading``."""
    lines = DOC.read_text(encoding="utf-8").split(heading, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[2:]


def test_the_option_table_is_every_option_of_the_plugin(bare: pytest.Pytester) -> None:
    documented = {re.match(r"`(--[\w-]+)", row[0]).group(1) for row in _table("## Options")}  # type: ignore[union-attr]
    shown = bare.runpytest("-p", "harness.pytest_plugin", "--help").stdout.str()
    group = shown.split("prefix-harness (docs/pytest.md):", 1)[1].split("\n\n", 1)[0]
    assert documented == set(re.findall(r"^\s+(--prefix-[\w-]+)", group, re.MULTILINE))
    inis = {row[1].strip("`") for row in _table("## Options") if row[1]}
    assert inis == {"prefix_subject"}
    assert re.search(r"^\s+prefix_subject \(string\):", shown, re.MULTILINE)


def test_the_marker_table_is_what_the_items_carry(bare: pytest.Pytester) -> None:
    documented = {
        m for row in _table("Items carry markers") for m in re.findall(r"`(\w+)`", row[0] + row[1])
    }
    stems = {
        p.stem for p in bundled_fixtures().glob("*.json") if not p.name.endswith(".schema.json")
    }
    families = {m for m in documented if m.startswith("family_")}
    assert families == {f"family_{s}" for s in stems} | {"family_generated", "family_<file"} - {
        "family_<file"
    }
    shown = bare.runpytest("-p", "harness.pytest_plugin", "--markers").stdout.str()
    registered = set(re.findall(r"^@pytest\.mark\.(\w+):", shown, re.MULTILINE))
    assert documented <= registered


def test_the_install_lines_name_the_package_and_the_dev_extra(tmp_path: Path) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (install,) = [t for lang, _, t in blocks() if lang == "sh" and "pip install" in t]
    named = {w for line in install.splitlines() for w in line.split("#")[0].split()[4:]}
    assert named == {f"/path/to/{project['name']}", "pytest-xdist"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "### In your own project" in readme, "the page points to the README's install"
    assert any(d.startswith("pytest-xdist") for d in project["optional-dependencies"]["dev"])
    path = tmp_path / "known-failures.toml"
    path.write_text(files()["known-failures.toml"][1], encoding="utf-8")
    assert len(load_expectations(path).entries) == 1


def test_a_failing_items_report_is_as_the_page_shows(
    bare: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's failing item: its first line, its rerun line (the subject aside) and its
    verdict are what the suite prints for a subject with that bug."""
    (shown,) = [t for lang, _, t in blocks() if lang == "text" and t.startswith("tools-")]
    first, rerun, *_, verdict = shown.splitlines()
    subject = "python:tests.cli.check_subjects:tool_order"
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    bare.syspathinsert(ROOT)
    words = shlex.split(rerun.removeprefix("rerun: pytest "))
    words[words.index("--prefix-subject") + 1] = subject
    result = bare.runpytest_subprocess("-p", "harness.pytest_plugin", *words)
    result.assert_outcomes(failed=1)
    printed = result.stdout.str()
    report = printed[printed.index(first) :].splitlines()
    assert report[0] == first
    assert report[1] == rerun.replace("'cmd:python3 my_subject_server.py'", subject)
    assert verdict in report
