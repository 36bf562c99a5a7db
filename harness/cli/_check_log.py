"""``prefix-harness check-log FILE``: group and check a JSON-lines log of requests offline
(SPEC §8 "Offline"); also the grouping options and the report output ``capture`` shares."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..capture import (
    DEFAULT_FORK_TAG,
    CheckResult,
    GroupOptions,
    LogError,
    check_requests,
    read_log,
    verdict_json,
    verdict_junit,
    verdict_text,
)
from ..dialects import all_dialects
from ._common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INCONCLUSIVE, EXIT_OK, fail

__all__ = ["add_check_options", "add_parser", "group_options", "report", "run"]

DESCRIPTION = """\
Group the requests of a JSON-lines log into conversations (parent, fork children, siblings,
spawned children, follow-ups) and check each group against the rules, without calling any
provider. A line is a record of `prefix-harness capture`, or a minimal object
{"body": <request JSON, object or text>, "path": ..., "dialect": ..., "mark": ...} where only
"body" is required (docs/capture.md). Exit 0 when every rule passes, 1 when one fails, 2 on
bad usage or input, 4 when the check is inconclusive (nothing checked, or requests left out
without a failure to show for it).
"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check-log",
        help="group and check a JSON-lines log of recorded requests",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", metavar="FILE", help="the JSON-lines log")
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
    parser.add_argument(
        "--junit-xml", metavar="FILE", help="also write the report as JUnit XML to FILE"
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


def group_options(args: argparse.Namespace, fork_tag: str = DEFAULT_FORK_TAG) -> GroupOptions:
    """The grouping options given on the command line (``fork_tag`` when none is given)."""
    return GroupOptions(
        fork_tag=args.fork_tag or fork_tag,
        directive_key=args.directive_key,
        fork_tool=args.fork_tool,
        parent_mark=args.parent_mark,
        parent_id=args.parent_id,
    )


def report(result: CheckResult, args: argparse.Namespace) -> int:
    """Print the report (text or JSON), write the JUnit XML file if asked; the exit code."""
    if args.json:
        sys.stdout.buffer.write(verdict_json(result))
        sys.stdout.flush()
    else:
        sys.stdout.write(verdict_text(result))
        sys.stdout.flush()
    if args.junit_xml:
        try:
            Path(args.junit_xml).write_bytes(verdict_junit(result))
        except OSError as e:
            return fail(f"cannot write the JUnit XML report {args.junit_xml}: {e.strerror or e}")
    if result.failed:
        return EXIT_FAILED
    return EXIT_INCONCLUSIVE if result.inconclusive else EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.fork_tag == "":
        return fail("--fork-tag must not be empty", code=EXIT_BAD_INPUT)
    try:
        requests, ignored = read_log(args.file, dialect=args.dialect)
    except LogError as e:
        return fail(str(e), code=EXIT_BAD_INPUT)
    subject = args.subject or Path(args.file).name
    result = check_requests(requests, ignored, options=group_options(args), subject=subject)
    return report(result, args)
