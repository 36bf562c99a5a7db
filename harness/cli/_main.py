"""The ``prefix-harness`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from . import _capture, _check, _check_log, _diff, _rules
from ._common import EXIT_BAD_INPUT, fail

__all__ = ["build_parser", "run"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="prefix-harness",
        description="Conformance harness for the request prefixes of forked LLM subagents.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    _check.add_parser(commands)
    _diff.add_parser(commands)
    _capture.add_parser(commands)
    _check_log.add_parser(commands)
    _rules.add_parser(commands)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (SPEC §8)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        code: int = args.run(args)
    except MemoryError:
        return fail("out of memory reading the input; lower --max-body-size")
    except KeyboardInterrupt:
        return fail("interrupted", code=130)
    except BrokenPipeError:
        return 0
    return code
