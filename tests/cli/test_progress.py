"""The check progress bar fits the terminal (harness/cli/_progress.py), on a real pty."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import pytest

from harness.cli._progress import ProgressBar, progress_line, terminal_columns
from harness.reports._escape import display_width

ROOT = Path(__file__).parents[2]


@contextmanager
def terminal(columns: int) -> Iterator[tuple[int, TextIO]]:
    """A pty ``columns`` wide: the master's descriptor, and the slave as a text stream."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST  # no "\n" -> "\r\n" translation: the bytes as written
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    stream = open(slave, "w", encoding="utf-8", closefd=True)  # noqa: SIM115
    try:
        yield master, stream
    finally:
        stream.close()
        os.close(master)


def read_all(master: int) -> str:
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the slave side is closed and drained
            break
        if not chunk:
            break
        out += chunk
    return out.decode("utf-8")


def drawn(output: str) -> list[str]:
    """Each state of the line on screen: the text between carriage returns."""
    return [part for part in re.split(r"\r", output) if part]


@pytest.mark.parametrize("columns", [120, 80, 40, 20, 12, 3])
def test_every_redraw_fits_the_terminal(columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    with terminal(columns) as (master, stream):
        bar = ProgressBar(stream)
        assert terminal_columns(stream) == columns
        names = [
            "fork-ends-user (openai)",
            "x",
            "continuable-persona-cold-resume (gemini)",
            "日本語",
        ]
        for done in range(1, 9):
            bar(done, 8, names[done % len(names)])
        stream.close()
        output = read_all(master)
    assert "\n" not in output  # one line, redrawn: never a line per scenario
    states = drawn(output)
    assert len(states) >= 8
    assert all(display_width(s) <= columns - 1 for s in states), states
    assert states[-1].strip() == ""  # cleared at the end


def test_the_line_shrinks_the_bar_first_then_the_name() -> None:
    wide = progress_line(3, 40, "fork-ends-user (openai)", 100)
    assert wide == f"[{'#' * 2}{'.' * 28}] 3/40 fork-ends-user (openai)"
    narrow = progress_line(3, 40, "fork-ends-user (openai)", 40)
    assert narrow.startswith("[")
    assert narrow.endswith("…")
    assert display_width(narrow) == 39
    tiny = progress_line(3, 40, "fork-ends-user (openai)", 20)
    assert tiny.startswith("3/40 fork-ends")  # no room for a bar
    assert display_width(tiny) <= 19
    assert progress_line(3, 40, "name", 4) == "3/…"  # three columns: the counts cut


def test_done_never_shows_more_than_total() -> None:
    assert progress_line(130, 120, "x", 80).split()[1] == "120/120"
    assert progress_line(130, 120, "x", 80).startswith("[" + "#" * 30 + "]")


def test_a_name_with_controls_or_wide_characters_is_cut_by_width() -> None:
    line = progress_line(1, 2, "\x1b[2J" + "漢" * 50, 30)
    assert "\x1b" not in line
    assert display_width(line) <= 29


def test_columns_from_the_environment_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "33")
    assert terminal_columns(io.StringIO()) == 33
    monkeypatch.delenv("COLUMNS")
    assert terminal_columns(io.StringIO()) >= 1  # not a terminal: shutil's answer


@pytest.mark.parametrize("columns", [40, 20])
def test_check_on_a_narrow_terminal_draws_one_line(columns: int) -> None:
    """The real command with its stderr on a pty of ``columns`` (read while it runs, so that
    a full pty buffer can never block it)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    command = [
        sys.executable, "-m", "harness", "check", "--fixtures",
        str(ROOT / "fixtures" / "oneshot.json"), "--examples", "0", "--dialect", "openai",
    ]  # fmt: skip
    with ThreadPoolExecutor(1) as pool:
        reading = pool.submit(read_all, master)
        try:
            done = subprocess.run(
                command, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                env=env, cwd=ROOT, timeout=300, check=False,
            )  # fmt: skip
        finally:
            os.close(slave)  # the reader sees EIO once the child's side is closed too
        output = reading.result(timeout=60)
    os.close(master)
    assert done.returncode == 0, done.stdout.decode()
    lines = output.replace("\r\n", "\n").split("\n")
    assert len(lines) == 1, output  # the bar never started a new line
    states = drawn(lines[0])
    assert len(states) >= 7  # a redraw per scenario of oneshot.json
    assert all(display_width(s) <= columns - 1 for s in states), states
