"""The README stays true: its example output is what the command prints."""

import re
import shlex
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


def test_readme_commands_are_the_ones_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = re.findall(r"^python3 -m pip install -e '\.\[dev\]' && (.+)$", readme, re.M)
    assert commands == ["prefix-harness check", "python3 -m pytest"]
    assert "python3 -m pip install --quiet --disable-pip-version-check -e '.[dev]'" in ci
    assert "\nprefix-harness check --no-progress\n" in ci
    assert ci.rstrip().endswith("python3 -m pytest")
