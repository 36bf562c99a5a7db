"""docs/capture.md is true: its quick start prints what the page shows (but for the port),
and the synopses of ``capture`` and ``check-log`` name every option the commands take."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli._main import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "capture.md"
PORT = re.compile(r"127\.0\.0\.1:\d+")


def _section(heading: str) -> str:
    return DOC.read_text(encoding="utf-8").split(heading, 1)[1]


def test_the_quick_start_prints_what_the_page_shows(tmp_path: Path) -> None:
    quick = _section("## Quick start")
    command = re.search(r"```sh\n(.*?)```", quick, re.S)
    shown = re.search(r"```text\n(.*?)```", quick, re.S)
    assert command is not None
    assert shown is not None
    argv = shlex.split(command.group(1).replace("\\\n", " "))
    assert argv[:2] == ["prefix-harness", "capture"]
    at = argv.index("--")
    assert argv[at + 1] == "python3"
    argv = [
        sys.executable,
        "-m",
        "harness",
        *argv[1 : at + 1],
        sys.executable,
        "-S",
        *argv[at + 2 :],
    ]
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    done = subprocess.run(
        argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout.replace(shlex.join([sys.executable, "-S"]), "python3")
    assert PORT.sub("127.0.0.1:PORT", printed) == PORT.sub("127.0.0.1:PORT", shown.group(1))
    assert len(printed.splitlines()) <= 40, "a passing capture is a screen"


def _options(command: str) -> list[str]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    sub = commands.choices[command]
    return sorted(
        max(a.option_strings, key=len)
        for a in sub._actions
        if a.option_strings and a.dest != "help"
    )


@pytest.mark.parametrize("command", ["capture", "check-log"])
def test_the_synopsis_names_every_option(command: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    synopsis = re.search(rf"```text\n(prefix-harness {command} .*?)```", text, re.S)
    assert synopsis is not None
    shown = set(re.findall(r"\[(-[-\w]+)[\] ]", synopsis.group(1)))
    shown |= set(re.findall(r" (--[-\w]+) ", synopsis.group(1)))
    short = {"--verbose": "-v"}
    missing = [o for o in _options(command) if o not in shown and short.get(o) not in shown]
    assert not missing, f"the {command} synopsis of docs/capture.md lacks {missing}"
