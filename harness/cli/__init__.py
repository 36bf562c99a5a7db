"""The command line: ``prefix-harness COMMAND ...``."""

import sys

from ._collect import ends_process
from ._main import build_parser, run

__all__ = ["build_parser", "main", "run"]


def main() -> None:
    """Console-script entry point: ``run`` with ``sys.argv``, exiting with its code (the
    process ends with the command: ``_collect.ends_process``)."""
    ends_process()
    sys.exit(run())
