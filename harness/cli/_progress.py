"""The progress bar of ``check``: one line on a terminal, redrawn in place, never wider than it.

A line one column wider than the terminal wraps, and every redraw then starts a new line: in a
narrow terminal the bar would print a line per scenario. So the width is asked of the terminal
at every redraw (a window may be resized during a run): ``COLUMNS`` when set, else the size
of the stream's own terminal, else ``shutil.get_terminal_size()``. The line is cut to one
column less than that (a cursor in the last column wraps on some terminals), the bar itself
shrinks first and goes when there is no room, and the scenario's name is cut last, by display
width. Past the end, ``done`` never shows more than ``total``.
"""

from __future__ import annotations

import os
import shutil
from typing import TextIO

from ..reports import display_width, printable

__all__ = ["ProgressBar", "progress_line", "terminal_columns"]

BAR = 30
"""The bar's width where the terminal has room for it."""

_MIN_BAR = 5


def terminal_columns(stream: TextIO) -> int:
    """The columns of the terminal ``stream`` writes to (see the module's docstring)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdecimal() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(stream.fileno()).columns or shutil.get_terminal_size().columns
    except (AttributeError, OSError, ValueError):
        return shutil.get_terminal_size().columns


def progress_line(done: int, total: int, what: str, columns: int) -> str:
    """``[####......] 12/40 fork-ends-user (openai)``, at most ``columns - 1`` columns wide."""
    room = max(1, columns - 1)
    done = max(0, min(done, total))
    counts = f"{done}/{total}"
    width = min(BAR, room - len(counts) - 3 - 12)  # "[", "] ", " ", and some of the name
    if width >= _MIN_BAR:
        filled = width * done // max(total, 1)
        line = f"[{'#' * filled}{'.' * (width - filled)}] {counts}"
    else:
        line = counts
    line = _cut(line, room)
    rest = room - display_width(line) - 1
    name = _cut(printable(what), rest) if rest > 0 else ""
    return f"{line} {name}" if name else line


def _cut(text: str, columns: int) -> str:
    """``text`` cut to ``columns`` by display width, a cut marked with ``…``."""
    if display_width(text) <= columns:
        return text
    out = ""
    for char in text:
        if display_width(out + char) > columns - 1:
            break
        out += char
    return out + "…" if columns > 0 else ""


class ProgressBar:
    """``progress(done, total, what)`` for ``run_check``: redraws one line of ``stream`` with
    a carriage return, and clears it once ``done`` reaches ``total``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._shown = 0  # the columns the line on screen takes

    def __call__(self, done: int, total: int, what: str) -> None:
        columns = terminal_columns(self.stream)
        line = progress_line(done, total, what, columns)
        width = display_width(line)
        # spaces over the rest of a longer line drawn before, within the terminal's width
        pad = " " * max(0, min(self._shown, columns - 1) - width)
        self.stream.write(f"\r{line}{pad}")
        self._shown = width
        if done >= total:
            self.stream.write("\r" + " " * min(width, columns - 1) + "\r")
            self._shown = 0
        self.stream.flush()
