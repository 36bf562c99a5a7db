"""What the commands share: exit codes, body options, error output."""

from __future__ import annotations

import argparse
import re
import sys

from .._bodies import DEFAULT_MAX_BODY_BYTES
from ..dialects import all_dialects
from ..reports._escape import printable_lines

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_INCONCLUSIVE",
    "EXIT_OK",
    "EXIT_SUBJECT",
    "add_body_options",
    "fail",
    "parse_size",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_SUBJECT = 3
EXIT_INCONCLUSIVE = 4
"""Nothing was checked: no verdict either way (every request left out, no fork reached,
every scenario skipped). Never 0, so that CI fails."""

_SIZE = re.compile(r"(\d+)\s*([kmg]i?b?)?", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def parse_size(text: str) -> int:
    """``"128M"``, ``"1GiB"``, ``"500000"`` -> bytes (binary units)."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 500000, 64M or 1G")
    number, unit = match.groups()
    size = int(number) * _UNITS[(unit or "")[:1].lower()]
    if size < 1:
        raise argparse.ArgumentTypeError("the size must be at least 1 byte")
    return size


def add_body_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dialect",
        choices=list(all_dialects()),
        help="the bodies' wire format (default: detected from the bodies)",
    )
    parser.add_argument(
        "--max-body-size",
        type=parse_size,
        default=DEFAULT_MAX_BODY_BYTES,
        metavar="SIZE",
        help="refuse a body larger than this (default: 128M)",
    )


def fail(message: str, *, code: int = EXIT_BAD_INPUT) -> int:
    """Print one sentence to stderr and return the exit code. A control character in it (from a
    file name, a body or a subject's stderr) is escaped; its line breaks are kept."""
    print(f"prefix-harness: error: {printable_lines(message)}", file=sys.stderr)
    return code
