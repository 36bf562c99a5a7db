"""``prefix-harness check``: run a subject over the fixtures and generated scenarios."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..dialects import all_dialects
from ..reports import printable
from ._collect import paced_collections
from ._common import (
    EXIT_BAD_INPUT,
    EXIT_SUBJECT,
    add_report_options,
    add_strict_bytes,
    fail,
    finish_reports,
    output_problems,
)

if TYPE_CHECKING:
    from ..check import CheckRun
    from ._progress import ProgressBar

__all__ = ["add_parser"]

MAX_HANGS = 3
"""``harness.check.MAX_HANGS``, the --max-hangs default, kept here so that building the
parser does not load the checker (tests/cli/test_startup.py holds the two equal)."""

MAX_JOBS = 256
"""The most processes ``--jobs`` starts."""

DESCRIPTION = """\
Run a subject over the fixture corpus and N generated scenarios per dialect, evaluate every
rule on what it sends, and report. With no arguments it checks the bundled reference
implementation. A failing generated scenario is shrunk to a minimal one and printed as a
fixture ready to commit.

subjects:  reference (default) | python:package.module:factory | cmd:<command line>
exit:      0 conforming, 1 a rule failed (or an expected failure passed), 2 bad usage or
           input, 3 the subject crashed, hung or broke the protocol, 4 inconclusive
           (the subject skipped every scenario: nothing was checked), 128+N ended by
           signal N (the subject and everything it started are ended first)
bounds:    a cmd: subject gets --timeout per scenario; the run stops after --max-hangs
           hangs in a row, or once --deadline has passed (exit 3, said in the report)
jobs:      --jobs N runs the scenarios in N processes, each with its own subject (a cmd:
           subject is started once per process); the scenarios are generated here first
           and a failure is shrunk here, so the report is the same for every N
"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check",
        help="check a subject against every rule on fixtures and generated scenarios",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--subject", default="reference", help="the implementation under test")
    parser.add_argument(
        "--dialect",
        action="append",
        choices=list(all_dialects()),
        help="a dialect to check (repeat for several; default: every dialect the subject has)",
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=25,
        metavar="N",
        help="generated scenarios per dialect (default: 25)",
    )
    parser.add_argument(
        "--seed", type=int, help="vary the generated scenarios (default: derandomized)"
    )
    parser.add_argument(
        "--fixtures",
        type=Path,
        metavar="PATH",
        help="a fixture file or folder (default: the bundled corpus)",
    )
    parser.add_argument("--expect", type=Path, metavar="FILE", help="known failures (TOML)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--junit-xml", type=Path, metavar="FILE", help="also write JUnit XML here")
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write a self-contained HTML report here (docs/html.md)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="per scenario, for a cmd: subject (default: 10; at most a day)",
    )
    parser.add_argument(
        "--max-hangs",
        type=int,
        default=MAX_HANGS,
        metavar="N",
        help=f"stop the run after N hangs in a row (default: {MAX_HANGS}; 0: never)",
    )
    parser.add_argument(
        "--deadline",
        type=float,
        metavar="SECONDS",
        help="stop the run once this much time has passed (default: none)",
    )
    parser.add_argument(
        "--validate-protocol",
        action="store_true",
        help="check every protocol message against its schema",
    )
    parser.add_argument(
        "--jobs",
        default="1",
        metavar="N",
        help="run the scenarios in N processes ('auto': one per CPU; default: 1)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal")
    add_report_options(parser)
    add_strict_bytes(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with paced_collections() as started:
        return _run(args, started)


def _run(args: argparse.Namespace, started: Callable[[], None]) -> int:
    from ..check import (
        ExpectationError,
        Expectations,
        bundled_fixtures,
        cpu_count,
        load_expectations,
        run_check,
    )
    from ..scenarios import ScenarioFormatError, load_fixtures
    from ..subjects import SubjectStartError, SubprocessOptions, load_subject, timeout_problem

    if args.examples < 0:
        return fail("--examples must be 0 or more")
    for flag, seconds in (("--timeout", args.timeout), ("--deadline", args.deadline)):
        problem = None if seconds is None else timeout_problem(seconds)
        if problem is not None:
            return fail(f"{flag} {problem}, not {seconds:g}")
    if args.max_hangs < 0:
        return fail("--max-hangs must be 0 (never stop) or more")
    jobs = cpu_count() if args.jobs == "auto" else int(args.jobs) if args.jobs.isdecimal() else 0
    if not 1 <= jobs <= MAX_JOBS:
        return fail(
            f"--jobs must be a whole number from 1 to {MAX_JOBS}, or auto, not {args.jobs!r}"
        )
    problem = output_problems(args)
    if problem is not None:
        return fail(problem)
    options = SubprocessOptions(timeout=args.timeout, validate=args.validate_protocol)
    try:
        fixtures = load_fixtures(args.fixtures or bundled_fixtures())
        expectations = load_expectations(args.expect) if args.expect else Expectations()
        subject = load_subject(args.subject, options=options)
    except (ScenarioFormatError, ExpectationError, ValueError) as e:
        return fail(str(e), code=EXIT_BAD_INPUT)
    started()  # what start-up loaded and the fixtures live until the end: no collection walks them
    try:
        with subject:
            dialects = _dialects(args.dialect, subject.dialects)
            if not dialects:
                return fail(f"the subject {subject.name!r} has none of the dialects asked for")
            result = run_check(
                subject,
                fixtures,
                dialects=dialects,
                examples=args.examples,
                rng_seed=args.seed,
                expectations=expectations,
                progress=None if args.no_progress or not sys.stderr.isatty() else _bar(),
                max_hangs=args.max_hangs,
                deadline=args.deadline,
                jobs=jobs,
                spawn=partial(load_subject, args.subject, options=options),
                strict=args.strict_bytes,
            )
    except SubjectStartError as e:
        return fail(e.report(), code=EXIT_SUBJECT)
    return _report(result, args)


def _dialects(asked: list[str] | None, supported: tuple[str, ...]) -> list[str]:
    if not asked:
        return list(supported)
    for name in asked:
        if name not in supported:
            print(
                printable(f"prefix-harness: note: the subject has no {name} dialect; skipped"),
                file=sys.stderr,
            )
    return [d for d in dict.fromkeys(asked) if d in supported]


def _bar() -> ProgressBar:
    from ._progress import ProgressBar  # a terminal's width-fitted bar, one line redrawn

    return ProgressBar(sys.stderr)


def _report(result: CheckRun, args: argparse.Namespace) -> int:
    from ..reports import check_json, check_junit, check_outcomes, check_text

    outcomes = check_outcomes(result, fail_on=args.fail_on)
    if args.html is not None:
        from ..reports import check_html, write_html  # the page's modules, loaded for it only

        why = [outcomes.failed_on_warning] if outcomes.failed_on_warning is not None else []
        page = check_html(result, seed=args.seed, exit_code=outcomes.exit_code, notes=why)
        problem = write_html(args.html, page)
        if problem is not None:
            return fail(problem)
    if args.junit_xml is not None:
        from .._files import write_whole

        try:
            write_whole(args.junit_xml, check_junit(result))
        except OSError as e:
            reason = e.strerror or e
            return fail(f"{args.junit_xml}: the JUnit XML report cannot be written ({reason})")
    if args.json:
        sys.stdout.buffer.write(check_json(result, fail_on=args.fail_on))
    else:
        sys.stdout.write(check_text(result, verbose=args.verbose, fail_on=args.fail_on))
    return finish_reports(outcomes, args)
