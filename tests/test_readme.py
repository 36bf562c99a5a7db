"""The README stays true: its example output is what the command prints."""

import argparse
import ast
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import run
from harness.scenarios import load_fixtures

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
        ("-e '.[dev]'", "python3 -m pytest -n auto"),
    ]
    tests_line = next(
        line for line in readme.splitlines() if line.endswith("python3 -m pytest -n auto")
    )
    assert tests_line.startswith("(command -v chromium"), "the test command installs Chromium"
    assert "(command -v go >/dev/null || { apt-get update && apt-get install -y golang-go; })" in (
        tests_line
    ), "the test command installs Go (the Go subject's tests build it)"


def test_readme_commands_are_the_ones_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI installs the dev extra (the tests need it), a superset of the main job's install
    assert "python3 -m pip install --quiet --disable-pip-version-check -e '.[dev]'" in ci
    assert "\nprefix-harness check --no-progress\n" in ci
    assert ci.rstrip().endswith("python3 -m pytest -n auto")
    # the tools the tests need are installed before them, as the README's test command does
    tests_at = ci.rindex("python3 -m pytest -n auto")
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


def _capture_block(readme: str) -> list[list[str]]:
    """The commands of the README's capture example, one per line (continuations joined)."""
    block = re.search(r"### `prefix-harness capture`.*?```sh\n(.*?)```", readme, re.S)
    assert block is not None
    joined = block.group(1).replace("\\\n", " ")
    return [shlex.split(line) for line in joined.splitlines() if line.strip()]


def test_readme_capture_example_runs_with_the_standard_library_alone(tmp_path: Path) -> None:
    """The README's capture and check-log commands, as written, after the main install: the
    agent runs without site-packages (``python3 -S``), so it needs no SDK, and nothing is
    left behind but the record asked for."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = _capture_block(readme)
    assert [c[:2] for c in commands] == [
        ["prefix-harness", "capture"],
        ["prefix-harness", "check-log"],
    ]
    for command in commands:
        argv = [sys.executable, "-m", "harness", *command[1:]]
        argv = [str(ROOT / a) if a.startswith("examples/") else a for a in argv]
        if "--" in argv:
            at = argv.index("--")
            assert argv[at + 1] == "python3"
            argv[at + 1 : at + 2] = [sys.executable, "-S"]
        done = subprocess.run(
            argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert done.stdout.endswith("verdict: conforming — exit 0\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]


def test_readme_pytest_example_passes_under_pytest(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python file=(test_\w+\.py)\n(.*?)```", readme, re.S)
    assert block is not None
    test = tmp_path / block.group(1)
    test.write_text(block.group(2), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout


def test_the_examples_import_the_standard_library_and_harness_alone() -> None:
    """Every example runs after the main install: no SDK, no package of the dev extra."""
    allowed = set(sys.stdlib_module_names) | {"harness", "__future__"}
    for path in sorted((ROOT / "examples").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            outside = {n.split(".")[0] for n in names} - allowed
            assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"


def test_the_wheel_the_readme_builds_holds_the_command_the_plugin_and_the_corpus(
    tmp_path: Path,
) -> None:
    """The README's wheel route: ``python3 -m build --wheel`` (here without build isolation,
    so without a network), installed alone: its ``harness`` is the wheel's, with the bundled
    fixtures, the console script and the pytest plugin's entry point."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python3 -m build --wheel --outdir dist /path/to/prefix-harness" in readme
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
         str(tmp_path / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("prefix_harness-*-py3-none-any.whl")
    assert wheel.name in readme.replace("0.1.0", wheel.name.split("-")[1])
    site = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
         str(wheel)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-2000:]
    probe = (
        "import importlib.metadata as m, harness\n"
        "from harness.check import bundled_fixtures\n"
        "from harness.scenarios import load_fixtures\n"
        "print(harness.__file__)\n"
        "print(len(load_fixtures(bundled_fixtures())))\n"
        "print([e.value for e in m.entry_points(group='pytest11') if e.name == 'prefix_harness'])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    where, count, plugin = done.stdout.splitlines()
    assert Path(where).is_relative_to(site)
    assert int(count) == len(load_fixtures(ROOT / "fixtures"))
    assert plugin == "['harness.pytest_plugin']"
    assert (site / "bin" / "prefix-harness").exists()
    check = subprocess.run(
        [sys.executable, "-m", "harness", "check", "--examples", "0", "--dialect", "openai",
         "--no-progress"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout[-2000:]
