"""``prefix-harness check-log FILE``: group and check a JSON-lines log of requests offline
(docs/capture.md, check-log); also the grouping options and the report output ``capture`` shares."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..dialects import all_dialects
from ..reports import printable
from ._collect import paced_collections
from ._common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    add_report_options,
    add_strict_bytes,
    fail,
    finish_reports,
    output_problems,
)

if TYPE_CHECKING:
    from ..capture import CheckResult, GroupOptions
    from ..check import Expectations, KnownFailure
    from ..rules import Finding, ScenarioReport

__all__ = ["add_check_options", "add_parser", "expectations", "group_options", "report", "run"]

DEFAULT_FORK_TAG = "<fork-boilerplate>"
"""``harness.capture.DEFAULT_FORK_TAG``, the --fork-tag default, kept here so that building the
parser does not load the capture machinery (tests/cli/test_startup.py holds the two equal)."""

DESCRIPTION = """\
Group the requests of a JSON-lines log into conversations (parent, fork children, siblings,
spawned children, follow-ups) and check each group against the rules, without calling any
provider. A line is a record of `prefix-harness capture`, or a minimal object
{"body": <request JSON, object or text>, "path": ..., "dialect": ..., "mark": ...} where only
"body" is required (docs/capture.md); "response" (the provider's response JSON) or "usage"
(its usage) beside it shows the predicted cache usage against the reported one. Exit 0 when
every rule passes, 1 when one fails, 2 on bad usage or input, 4 when the check is
inconclusive (nothing checked, or requests left out without a failure to show for it).
"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check-log",
        help="group and check a JSON-lines log of recorded requests",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file",
        metavar="FILE",
        help="the JSON-lines log; - reads standard input, copied first to a temporary file "
        "(the check reads bodies back as it needs them)",
    )
    parser.add_argument(
        "--dialect",
        choices=list(all_dialects()),
        help="the wire format of lines that do not name one (default: from the line's path, "
        "else detected from the body)",
    )
    add_check_options(parser, fork_tag=DEFAULT_FORK_TAG)
    parser.set_defaults(run=run)


def add_check_options(parser: argparse.ArgumentParser, *, fork_tag: str | None = None) -> None:
    """The report and grouping options of ``check-log`` and ``capture``."""
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_report_options(parser)
    add_strict_bytes(parser)
    parser.add_argument(
        "--junit-xml", metavar="FILE", help="also write the report as JUnit XML to FILE"
    )
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="also write a self-contained HTML report to FILE: the matrix, each failure and"
        " a timeline of the requests per conversation (docs/html.md)",
    )
    shown = fork_tag or "the script's fork_tag"
    parser.add_argument(
        "--fork-tag",
        metavar="TEXT",
        default=fork_tag,
        help=f"the text that marks a fork child's message (default: {shown})",
    )
    parser.add_argument(
        "--directive-key",
        metavar="KEY",
        help="the fork call argument holding the directive (default: its first string argument)",
    )
    parser.add_argument(
        "--fork-tool",
        metavar="NAME",
        help="the fork tool's name (default: learnt from the calls that started children)",
    )
    parser.add_argument(
        "--parent-mark",
        metavar="MARK",
        default="parent",
        help="the script mark of the parent's requests (default: parent)",
    )
    parser.add_argument(
        "--parent-id",
        metavar="ID",
        help="the parent's agent id, which a continuable child's guidance must name "
        "(default: unknown, parent-id-guidance not checked)",
    )
    parser.add_argument("--subject", metavar="NAME", help="the name shown in the report")
    parser.add_argument(
        "--expect",
        metavar="FILE",
        help="known failures (TOML, as for check): they do not fail the run; an entry that "
        "passes or matches nothing does",
    )


def expectations(args: argparse.Namespace) -> Expectations | str:
    """The ``--expect`` file's known failures (none without it), or why it cannot be read."""
    from ..check import ExpectationError, Expectations, load_expectations

    if not args.expect:
        return Expectations()
    try:
        return load_expectations(args.expect)
    except ExpectationError as e:
        return str(e)


def group_options(args: argparse.Namespace, fork_tag: str = DEFAULT_FORK_TAG) -> GroupOptions:
    """The grouping options given on the command line (``fork_tag`` when none is given)."""
    from ..capture import GroupOptions

    return GroupOptions(
        fork_tag=args.fork_tag or fork_tag,
        directive_key=args.directive_key,
        fork_tool=args.fork_tool,
        parent_mark=args.parent_mark,
        parent_id=args.parent_id,
    )


def report(
    result: CheckResult,
    args: argparse.Namespace,
    expected: Expectations | None = None,
    *,
    command: str = "check-log",
    overriding: int | None = None,
) -> int:
    """Print the report (text or JSON), write the JUnit XML and HTML files if asked; the exit
    code. With ``expected``, known failures do not fail the run, and entries that passed or
    matched nothing do; the report then ends with the verdict the expectations give.
    ``overriding`` is an exit code the caller returns whatever the check found (a capture's
    time-out): the HTML report shows it."""
    import orjson

    from ..check import Expectations
    from ..reports import (
        attention_lines,
        capture_json,
        capture_junit,
        capture_text,
        capture_verdict_line,
        log_outcomes,
        outcomes_json,
    )

    expected = expected or Expectations()
    found = _Expected.of(result, expected)
    code = found.exit_code(result)
    subject = args.subject or (Path(args.file).name if command == "check-log" else "capture")
    not_checked = [(n.what, n.reason) for n in result.not_checked]
    outcomes = log_outcomes(
        command,
        subject,
        result.reports,
        not_checked,
        expected,
        found.stale,
        code,
        fail_on=args.fail_on,
    )
    if args.json:
        sys.stdout.buffer.write(outcomes_json(outcomes, orjson.loads(capture_json(result))))
        sys.stdout.flush()
    else:
        text, verdict = capture_text(result), capture_verdict_line(result) + "\n"
        attention = "".join(f"{line}\n" for line in attention_lines(outcomes, verbose=args.verbose))
        sys.stdout.write(text.removesuffix(verdict) + attention + verdict)
        if expected.entries:
            sys.stdout.write(found.text(expected.source, code))
        if outcomes.failed_on_warning is not None:
            print(f"verdict: NOT conforming, {printable(outcomes.failed_on_warning)}")
        sys.stdout.flush()
    if args.junit_xml:
        from .._files import write_whole

        try:
            write_whole(args.junit_xml, capture_junit(result))
        except OSError as e:
            reason = e.strerror or e
            return fail(f"{args.junit_xml}: the JUnit XML report cannot be written ({reason})")
    if args.html:
        from ..reports import capture_html, write_html

        page = capture_html(
            result,
            command=command,
            exit_code=outcomes.exit_code if overriding is None else overriding,
            subject=subject,
            expected=expected,
            notes=[why] if (why := outcomes.failed_on_warning) is not None else [],
        )
        problem = write_html(args.html, page)
        if problem is not None:
            return fail(problem)
    return finish_reports(outcomes, args)


@dataclass(frozen=True, slots=True)
class _Expected:
    """A check's failures against the expectations: those expected (``known``), how many
    were not (``unexpected``), and the entries that passed or matched no finding at all
    (``stale``: the program or the grouping changed)."""

    known: list[tuple[ScenarioReport, Finding, KnownFailure]]
    unexpected: int
    stale: list[tuple[KnownFailure, str]]

    @classmethod
    def of(cls, result: CheckResult, expected: Expectations) -> _Expected:
        known: list[tuple[ScenarioReport, Finding, KnownFailure]] = []
        unexpected = 0
        used: set[int] = set()
        for r in result.reports:
            for f in r.findings:
                if f.status == "not-applicable":
                    continue
                entry = expected.expected(r.subject, r.scenario_id, r.dialect, f.rule)
                if entry is not None:
                    used.add(id(entry))
                if f.status != "fail":
                    continue
                if entry is None:
                    unexpected += 1
                else:
                    known.append((r, f, entry))
        stale = expected.unexpected_passes(result.reports)
        why = {
            id(e): reason
            for e, reason in expected.never_matching(
                scenarios={r.scenario_id for r in result.reports},
                dialects={r.dialect for r in result.reports},
            )
        }
        stale += [
            (e, why.get(id(e), "no check matched it"))
            for e in expected.entries
            if id(e) not in used
        ]
        return cls(known, unexpected, stale)

    def exit_code(self, result: CheckResult) -> int:
        if self.unexpected or self.stale:
            return EXIT_FAILED
        if result.failed:  # every failure was expected: a verdict, not a silent pass
            return EXIT_OK
        return EXIT_INCONCLUSIVE if result.inconclusive else EXIT_OK

    def text(self, source: str | None, code: int) -> str:
        lines = []
        if self.known:
            lines.append(f"expected failures ({len(self.known)}, from {source}):")
            lines += [f"  {r.scenario_id} · {f.rule}: {e.reason}" for r, f, e in self.known]
        if self.stale:
            lines.append(f"UNEXPECTED PASSES ({len(self.stale)}): remove these from {source}")
            lines += [
                f"  {e.scenario} · {e.rule} ({where}): expected to fail ({e.reason})"
                for e, where in self.stale
            ]
        word = {EXIT_OK: "as expected", EXIT_FAILED: "NOT as expected"}.get(code, "inconclusive")
        lines.append(
            f"with {source}: {word}: {len(self.known)} expected failures, "
            f"{self.unexpected} unexpected, {len(self.stale)} unexpected passes — exit {code}"
        )
        return "".join(line + "\n" for line in lines)


def run(args: argparse.Namespace) -> int:
    with paced_collections() as started:
        return _run(args, started)


def _run(args: argparse.Namespace, started: Callable[[], None]) -> int:
    from ..capture import LogError, check_requests, read_log

    if args.fork_tag == "":
        return fail("--fork-tag must not be empty", code=EXIT_BAD_INPUT)
    problem = output_problems(args)
    if problem is not None:
        return fail(problem, code=EXIT_BAD_INPUT)
    try:
        requests, ignored = read_log(args.file, dialect=args.dialect)
    except LogError as e:
        return fail(str(e), code=EXIT_BAD_INPUT)
    expected = expectations(args)
    if isinstance(expected, str):
        return fail(expected, code=EXIT_BAD_INPUT)
    subject = args.subject or Path(args.file).name
    started()  # start-up and the log's index live until the end: no collection walks them
    try:  # bodies are read back from the file as they are needed
        result = check_requests(
            requests,
            ignored,
            options=group_options(args),
            subject=subject,
            strict=args.strict_bytes,
        )
    except LogError as e:
        return fail(str(e), code=EXIT_BAD_INPUT)
    return report(result, args, expected)
