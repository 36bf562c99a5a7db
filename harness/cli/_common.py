"""What the commands share: exit codes, body options, error output, and the report options
of ``check``, ``check-log`` and ``capture`` (``-v``, ``--fail-on``, ``--summary-md``,
``--write-expect``; docs/reports.md)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._bodies import DEFAULT_MAX_BODY_BYTES
from ..dialects import all_dialects
from ..reports import printable, printable_lines

if TYPE_CHECKING:
    from ..reports import Outcomes

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_INCONCLUSIVE",
    "EXIT_OK",
    "EXIT_SUBJECT",
    "FAIL_ON",
    "STEP_SUMMARY",
    "add_body_options",
    "add_report_options",
    "add_strict_bytes",
    "fail",
    "finish_reports",
    "output_problems",
    "parse_size",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_SUBJECT = 3
EXIT_INCONCLUSIVE = 4
"""Nothing was checked: no verdict either way (every request left out, no fork reached,
every scenario skipped). Never 0, so that CI fails."""

FAIL_ON = ("failure", "warning")
"""What fails a run (``--fail-on``): a rule's failure (the default), or a warning too."""

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"
"""The variable naming a CI step's summary file: ``--summary-md`` appends to that file."""

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


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """``-v``, ``--fail-on``, ``--summary-md`` and ``--write-expect``, for every command whose
    report judges rules (``check``, ``check-log``, ``capture``)."""
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list each accepted divergence, warning and skipped scenario (else only counted)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="failure",
        help="what fails the run: a rule's failure (default), or also a warning (a run that"
        " would pass then exits 1, saying why; accepted divergences never fail it)",
    )
    parser.add_argument(
        "--summary-md",
        metavar="FILE",
        help=f"also write a Markdown summary to FILE (appended when FILE is ${STEP_SUMMARY},"
        " else overwritten)",
    )
    parser.add_argument(
        "--write-expect",
        metavar="FILE",
        help="write the run's failures to FILE as known failures for --expect, each with"
        " reason TODO (an existing FILE is overwritten, and said so)",
    )


def _is_step_summary(path: Path) -> bool:
    named = os.environ.get(STEP_SUMMARY)
    return named is not None and named != "" and Path(named).resolve() == path.resolve()


def output_problems(args: argparse.Namespace, *, record: str | None = None) -> str | None:
    """Why one of the files a run writes (its reports, ``record``) could not be written, or
    two of them are one file: one sentence, said before the run starts rather than after."""
    from .._files import output_problem, same_outputs

    outputs: dict[str, str | Path | None] = {"--record": record}
    for option in _OUTPUTS:
        outputs[option] = getattr(args, option[2:].replace("-", "_"), None)
    for option, path in outputs.items():
        if path is None or str(path) == "":
            continue
        what = "record" if option == "--record" else _OUTPUTS[option]
        problem = output_problem(path, what, regular=option == "--record")
        if problem is not None:
            return problem
    return same_outputs(outputs)


_OUTPUTS = {
    "--html": "HTML report",
    "--junit-xml": "JUnit XML report",
    "--summary-md": "summary",
    "--write-expect": "known-failures file",
}
"""The report files a run may write, by option."""


def _write(path: Path, text: str, what: str, *, append: bool = False) -> str | None:
    """Write ``text`` whole (a file beside it renamed into place; an append cut back when it
    fails); why it could not be written (one sentence), or None."""
    from .._files import append_whole, write_whole

    try:
        (append_whole if append else write_whole)(path, text.encode("utf-8"))
    except OSError as e:
        return f"{path}: the {what} cannot be written ({e.strerror or e})"
    return None


def _expect_file(outcomes: Outcomes) -> tuple[str, int]:
    """The ``--write-expect`` file of ``outcomes`` and how many entries it holds: every failure
    of the run, with the reason of the expectation that covered it or ``TODO``."""
    from ..check import KnownFailure, expectations_toml

    entries = [
        (
            KnownFailure(e.scenario, e.rule, e.reason or "TODO", dialect=e.dialect),
            f"{e.dialect} · {e.scenario} · {e.rule}: {e.message}",
        )
        for e in (*outcomes.unexpected_failures, *outcomes.expected_failures)
    ]
    header = (
        f"Known failures of {outcomes.subject}, written by prefix-harness {outcomes.command}"
        " --write-expect.\nReplace each TODO with the reason (an issue URL is best);"
        " use the file with --expect."
    )
    return expectations_toml(entries, header=header), len(dict.fromkeys(e for e, _ in entries))


def finish_reports(outcomes: Outcomes, args: argparse.Namespace) -> int:
    """Write the ``--summary-md`` and ``--write-expect`` files and say why ``--fail-on warning``
    fails the run; the exit code (2 when a file cannot be written)."""
    if args.summary_md:
        from ..reports import outcomes_markdown

        path = Path(args.summary_md)
        problem = _write(
            path, outcomes_markdown(outcomes), "summary", append=_is_step_summary(path)
        )
        if problem is not None:
            return fail(problem)
    if args.write_expect:
        path = Path(args.write_expect)
        existed = path.exists()
        text, count = _expect_file(outcomes)
        problem = _write(path, text, "known-failures file")
        if problem is not None:
            return fail(problem)
        done = "overwritten with" if existed else "written with"
        noun = "known failure" if count == 1 else "known failures"
        print(printable(f"prefix-harness: note: {path} {done} {count} {noun}"), file=sys.stderr)
    if outcomes.failed_on_warning is not None:
        print(f"prefix-harness: {printable(outcomes.failed_on_warning)}", file=sys.stderr)
    return outcomes.exit_code


def add_strict_bytes(parser: argparse.ArgumentParser) -> None:
    """``--strict-bytes``: the byte view instead of the rendered prefix."""
    parser.add_argument(
        "--strict-bytes",
        action="store_true",
        help="compare the bytes as sent (compact JSON, key order everywhere) instead of the"
        " prefix the provider renders: for teams that pin byte identity of their requests"
        " (docs/cache-model.md)",
    )
