"""docs/reports.md is true: its text report's failures and verdict are what ``check``
prints for the subject it names (a real token count, which the tokens extra adds, aside),
and its other example lines have the shapes the commands print."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from harness.cli import run

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reports.md"
REAL_TOKENS = re.compile(r"; \d[\d,]* tokens in \w+\)")


def _text_blocks() -> list[str]:
    return re.findall(r"```text\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_failures_and_the_verdict_are_what_check_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOC.read_text(encoding="utf-8")
    command = re.search(r"\(`check (--subject S [^`]+)` for a", text.replace("\n", " "))
    assert command is not None
    argv = shlex.split(command.group(1).replace("--subject S", ""))
    monkeypatch.chdir(ROOT)
    subject = "python:tests.cli.check_subjects:tool_order"  # reorders its children's tools
    assert run(["check", "--subject", subject, "--no-progress", *argv]) == 1
    printed = REAL_TOKENS.sub(")", capsys.readouterr().out)
    (block,) = [b for b in _text_blocks() if b.startswith("FAILURES (")]
    for part in block.split("...\n"):
        assert part in printed, part
    verdicts = [b.strip() for b in _text_blocks() if b.startswith("verdict: NOT conforming")]
    assert verdicts == [printed.splitlines()[-1]]


def test_the_other_lines_have_the_commands_shapes() -> None:
    blocks = _text_blocks()
    also = next(b for b in blocks if b.startswith("also: "))
    assert re.fullmatch(
        r"also: \d+ accepted divergences, \d+ warnings, \d+ skipped scenarios \(-v lists them\)\n"
        r"verdict: conforming — exit 0\n",
        also,
    )
