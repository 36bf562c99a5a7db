"""``prefix-harness capture``: run an agent program against a scripted fake provider, record
every request it makes, then group the requests and check them against the rules
(black-box capture, docs/capture.md)."""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from .._interrupt import Interrupted, deferred
from ..dialects import wires
from ..reports import printable_lines
from ._check_log import add_check_options, expectations, group_options, report
from ._common import EXIT_SUBJECT, fail, output_problems, parse_size

if TYPE_CHECKING:
    from ..capture import FakeProvider, Record, Script
    from ..check import Expectations

__all__ = ["add_parser", "run"]

DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024
"""``harness.capture.DEFAULT_MAX_REQUEST_BYTES``, the --max-request-size default, kept here so
that building the parser does not load the capture machinery (tests/cli/test_startup.py holds
the two equal)."""

DEFAULT_RECORD = "capture.jsonl"
GRACE_SECONDS = 2.0
"""How long the processes of an ended command have between SIGTERM and SIGKILL."""

DESCRIPTION = """\
Start a scripted fake model provider on loopback, run COMMAND with every official SDK
pointed at it (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL and dummy keys),
and record every request it receives as JSON lines, secrets redacted. The script says which
model turn answers which request (see docs/capture.md). When the command ends, the recorded
requests are grouped (parent, fork children, siblings, spawned children, follow-ups) and
checked against the rules, and the report is printed (with --json, everything else goes to
stderr). Exit 0 when every rule passes, 1 when one fails, 2 on bad usage or script, 3 when
the command timed out or never called the provider, 4 when the check is inconclusive
(nothing checked: no fork reached, every request refused or unreadable), 128+N when
signal N ended the run (the command and every process it started are ended first). The
record is written to FILE.partial, locked against a second run, and renamed to FILE when
the run ends.
"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "capture",
        help="run an agent against a scripted fake provider and record its requests",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s --dialect D --script FILE [options] -- COMMAND [ARG ...]",
    )
    parser.add_argument(
        "--dialect",
        required=True,
        choices=list(wires()),
        help="the provider to fake, by a dialect with a capture wire (openai and"
        " openai-responses both serve chat completions and the Responses API, each request"
        " recorded under its own dialect)",
    )
    parser.add_argument("--script", required=True, metavar="FILE", help="the JSON script")
    parser.add_argument(
        "--record",
        default=DEFAULT_RECORD,
        metavar="FILE",
        help=f"the JSON-lines record to write (default: {DEFAULT_RECORD})",
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address to listen on")
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="end the command's process group after this long (default: 300)",
    )
    parser.add_argument(
        "--max-request-size",
        type=parse_size,
        default=DEFAULT_MAX_REQUEST_BYTES,
        metavar="SIZE",
        help="answer 413 to a request body larger than this (default: 32M)",
    )
    add_check_options(parser)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the program to run, after --")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..capture import (
        FakeProvider,
        LoopbackError,
        RecordError,
        ScriptError,
        load_script,
        run_command,
    )

    command: list[str] = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        return fail("give the command to run after --, e.g. ... -- python3 agent.py")
    if not args.timeout > 0:
        return fail("--timeout must be more than 0 seconds")
    if args.fork_tag == "":
        return fail("--fork-tag must not be empty")
    if shutil.which(command[0]) is None:
        return fail(f"cannot run {command[0]!r}: no such program (or it is not executable)")
    expected = expectations(args)
    if isinstance(expected, str):
        return fail(expected)
    problem = output_problems(args, record=args.record)  # before the agent, not after it
    if problem is not None:
        return fail(problem)
    try:
        script = load_script(args.script)
        provider = FakeProvider(
            args.dialect,
            script,
            host=args.host,
            port=args.port,
            record=args.record,
            max_request_bytes=args.max_request_size,
        )
        provider.start()
    except (ScriptError, LoopbackError, RecordError, ValueError) as e:
        return fail(str(e))
    except OSError as e:
        where = f"record file {e.filename}" if e.filename else f"{args.host} port {args.port}"
        return fail(f"cannot start the fake provider ({where}): {e.strerror or e}")
    info = sys.stderr if args.json else sys.stdout
    try:
        _announce(provider, args, command, len(script.rules), info)
        outcome = run_command(
            command, provider, args.timeout, grace=GRACE_SECONDS, to_stderr=args.json
        )
    except Interrupted as e:
        with deferred():
            provider.stop()
        count = provider.recorded
        e.detail = (
            f"the command and every process it started were ended; {count}"
            f" request{' was' if count == 1 else 's were'} recorded in {args.record}"
        )
        raise
    finally:
        with deferred():  # the record is renamed into place whole, whatever ends the run
            provider.stop()
    return _report(outcome, provider, args, script, info, expected)


def _announce(
    provider: FakeProvider,
    args: argparse.Namespace,
    command: Sequence[str],
    rules: int,
    info: TextIO,
) -> None:
    from ..capture import provider_environment

    dialects = [w.dialect for w in provider.wires]
    served = f" (requests recorded as {', '.join(dialects)})" if len(dialects) > 1 else ""
    lines = [
        f"fake {provider.dialect} provider: {provider.base_url}{served}",
        f"script: {args.script} ({rules} rule{'' if rules == 1 else 's'})",
        f"record: {args.record}",
        "environment:",
        *(f"  {k}={v}" for k, v in provider_environment(provider.origin).items()),
        f"running: {shlex.join(command)} (timeout {args.timeout:g} s)",
    ]
    print(printable_lines("\n".join(lines)), file=info, flush=True)


def _report(
    outcome: str | int,
    provider: FakeProvider,
    args: argparse.Namespace,
    script: Script,
    info: TextIO,
    expected: Expectations,
) -> int:
    """Print how the command ended and what was recorded, then check the requests; the
    exit code (a time-out or a command that never called wins over the rules)."""
    from ..capture import RecordError, check_records, summarize

    if isinstance(outcome, int):
        status = f"killed by signal {-outcome}" if outcome < 0 else f"exited with status {outcome}"
        print(f"command {status}", file=info)
    failure = provider.failure
    if failure is not None:
        ended = "" if isinstance(outcome, int) else "; the command was ended"
        return fail(failure + ended)
    try:
        records: Sequence[Record] = provider.records
    except RecordError as e:
        return fail(str(e))
    info.write(summarize(records))
    print(f"record written to {args.record}", file=info, flush=True)
    if isinstance(outcome, str) and outcome.startswith("cannot run"):
        return fail(outcome)
    if isinstance(outcome, str) and not records:
        return fail(outcome, code=EXIT_SUBJECT)
    if not records:
        return fail(
            "the command never called the fake provider: does it read the base URL and key"
            " from the environment printed above?",
            code=EXIT_SUBJECT,
        )
    print("", file=info, flush=True)
    options = group_options(args, fork_tag=script.fork_tag)
    result = check_records(
        records, options=options, subject=args.subject or "capture", strict=args.strict_bytes
    )
    overriding = EXIT_SUBJECT if isinstance(outcome, str) else None
    code = report(result, args, expected, command="capture", overriding=overriding)
    if isinstance(outcome, str):
        return fail(outcome, code=EXIT_SUBJECT)
    return code
