"""The command line: ``prefix-harness COMMAND ...``."""

import sys

from ._main import build_parser, run

__all__ = ["build_parser", "main", "run"]


def main() -> None:
    """Console-script entry point: ``run`` with ``sys.argv``, exiting with its code."""
    sys.exit(run())
