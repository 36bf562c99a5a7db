"""The README stays true: its example output is what the command prints."""

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import run

ROOT = Path(__file__).parents[1]


def test_readme_diff_example_is_the_real_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ prefix-harness (diff [^\n]+)\n(.*?)```", readme, re.S)
    assert block is not None
    monkeypatch.chdir(ROOT)
    run(shlex.split(block.group(1)))
    assert capsys.readouterr().out == block.group(2)


SETUP = re.compile(
    r"^(?:\(command -v chromium >/dev/null \|\| "
    r"\{ apt-get update && apt-get install -y chromium; \}\) && )?"
    r"(?:\(command -v go >/dev/null \|\| "
    r"\{ apt-get update && apt-get install -y golang-go; \}\) && )?"
    r"python3 -m venv \.venv && \. \.venv/bin/activate && "
    r"python3 -m pip install (.+?) && (.+)$",
    re.M,
)


def test_readme_has_two_setup_commands_the_main_job_without_dev() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SETUP.findall(readme) == [
        ("-e .", "prefix-harness check"),
        ("-e '.[dev]'", "python3 -m pytest"),
    ]
    tests_line = next(line for line in readme.splitlines() if line.endswith("python3 -m pytest"))
    assert tests_line.startswith("(command -v chromium"), "the test command installs Chromium"
    assert "(command -v go >/dev/null || { apt-get update && apt-get install -y golang-go; })" in (
        tests_line
    ), "the test command installs Go (the Go subject's tests build it)"


def test_readme_commands_are_the_ones_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI installs the dev extra (the tests need it), a superset of the main job's install
    assert "python3 -m pip install --quiet --disable-pip-version-check -e '.[dev]'" in ci
    assert "\nprefix-harness check --no-progress\n" in ci
    assert ci.rstrip().endswith("python3 -m pytest")
    # the tools the tests need are installed before them, as the README's test command does
    tests_at = ci.rindex("python3 -m pytest")
    for tool, package in (("chromium", "chromium"), ("go", "golang-go")):
        install = f"command -v {tool} >/dev/null || {{ apt-get update -qq && "
        install += f"apt-get install -y -qq {package}; }}"
        assert -1 < ci.find(install) < tests_at, f"CI installs {package} before the tests"


def test_readme_synopsis_of_check_names_every_flag() -> None:
    from harness.cli._main import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    synopsis = re.search(r"```sh\n(prefix-harness check \[.*?)```", readme, re.S)
    assert synopsis is not None
    parser = build_parser()
    check = next(
        action.choices["check"]
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    shown = set(re.findall(r"\[(-[-\w]+)[\] ]", synopsis.group(1)))
    missing = sorted(
        max(action.option_strings, key=len)
        for action in check._actions
        if action.option_strings and action.dest != "help" and not shown & {*action.option_strings}
    )
    assert not missing, f"the README's check synopsis lacks {missing}"


def test_readme_expect_example_names_a_real_scenario() -> None:
    from harness.check import bundled_fixtures
    from harness.scenarios import load_fixtures

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ids = {s.id for s in load_fixtures(bundled_fixtures())}
    named = re.findall(r'^scenario = "([^"]+)"', readme, re.M)
    assert named
    assert set(named) <= ids


def test_readme_python_example_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## In Python", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None
    done = subprocess.run(
        [sys.executable, "-c", block.group(1)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "docs/api.md" in section.split("```", 1)[0]
