"""``prefix-harness capture``: run an agent program against a scripted fake provider, record
every request it makes, then group the requests and check them against the rules
(black-box capture, docs/capture.md)."""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .._interrupt import Interrupted, deferred
from ..dialects import wires
from ..reports import printable_lines
from ._check_log import add_check_options, expectations, group_options, report
from ._common import EXIT_SUBJECT, fail, output_problems, parse_size

if TYPE_CHECKING:
    from ..capture import FakeProvider, Record, Script, StderrTail
    from ..check import Expectations

__all__ = ["add_parser", "run"]

DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024
"""``harness.capture.DEFAULT_MAX_REQUEST_BYTES``, the --max-request-size default, kept here so
that building the parser does not load the capture machinery (tests/cli/test_startup.py holds
the two equal)."""

GRACE_SECONDS = 2.0
"""How long the processes of an ended command have between SIGTERM and SIGKILL."""

DESCRIPTION = """\
Start a scripted fake model provider on loopback, run COMMAND with every official SDK
pointed at it (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL and dummy keys),
and record every request it receives, secrets redacted. The script says which model turn
answers which request (see docs/capture.md). When the command ends, the recorded requests
are grouped (parent, fork children, siblings, spawned children, follow-ups) and checked
against the rules, and the report is printed: a line per check, the failures, the verdict
(with --json, everything else goes to stderr). Exit 0 when every rule passes, 1 when one
fails, 2 on bad usage or script, 3 when the command timed out, or made no request (when it
died first, its exit status and the end of its stderr are said), 4 when the check is
inconclusive (nothing checked: no fork reached, every request refused or unreadable),
128+N when signal N ended the run (the command and every process it started are ended
first). With --record FILE the requests are kept as JSON lines for check-log, written to
FILE.partial, locked against a second run, and renamed to FILE when the run ends; without
it, nothing is left behind.
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
        metavar="FILE",
        help="keep the requests as a JSON-lines record in FILE, for check-log (default: none"
        " is left behind)",
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
    if args.record is not None:
        return _capture(args, command, args.record, expected)
    with tempfile.TemporaryDirectory(prefix="prefix-harness-capture-") as scratch:
        # the records live in a file (memory stays bounded), removed with it at the end
        return _capture(args, command, str(Path(scratch) / "capture.jsonl"), expected)


def _capture(
    args: argparse.Namespace, command: list[str], record: str, expected: Expectations
) -> int:
    """Serve, run the command, report; ``record`` is where the requests are recorded."""
    from ..capture import (
        FakeProvider,
        LoopbackError,
        RecordError,
        ScriptError,
        StderrTail,
        load_script,
        run_command,
    )

    try:
        script = load_script(args.script)
        provider = FakeProvider(
            args.dialect,
            script,
            host=args.host,
            port=args.port,
            record=record,
            max_request_bytes=args.max_request_size,
        )
        provider.start()
    except (ScriptError, LoopbackError, RecordError, ValueError) as e:
        return fail(str(e))
    except OSError as e:
        where = f"record file {e.filename}" if e.filename else f"{args.host} port {args.port}"
        return fail(f"cannot start the fake provider ({where}): {e.strerror or e}")
    info = sys.stderr if args.json else sys.stdout
    tail = StderrTail()
    environment = _environment(provider)
    try:
        _announce(provider, args, command, len(script.rules), info)
        outcome = run_command(
            command,
            provider,
            args.timeout,
            grace=GRACE_SECONDS,
            to_stderr=args.json,
            stderr_tail=tail,
        )
    except Interrupted as e:
        with deferred():
            provider.stop()
        count = provider.recorded
        kept = f" in {args.record}" if args.record else " (not kept: --record FILE keeps them)"
        e.detail = (
            f"the command and every process it started were ended; {count}"
            f" request{' was' if count == 1 else 's were'} recorded{kept}"
        )
        raise
    finally:
        with deferred():  # the record is renamed into place whole, whatever ends the run
            provider.stop()
    return _report(outcome, provider, args, script, info, expected, (tail, environment))


def _environment(provider: FakeProvider) -> list[str]:
    from ..capture import provider_environment

    return [f"{k}={v}" for k, v in provider_environment(provider.origin).items()]


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
    names = list(provider_environment(provider.origin))
    lines = [
        f"fake {provider.dialect} provider: {provider.base_url}{served}",
        f"script: {args.script} ({rules} rule{'' if rules == 1 else 's'})",
    ]
    if args.verbose:
        lines += ["environment:", *(f"  {line}" for line in _environment(provider))]
    else:
        urls = [n for n in names if n.endswith("_BASE_URL")]
        lines.append(
            f"environment: {', '.join(urls)} and dummy keys point the SDKs at it"
            f" (-v prints all {len(names)})"
        )
    lines.append(f"running: {shlex.join(command)} (timeout {args.timeout:g} s)")
    print(printable_lines("\n".join(lines)), file=info, flush=True)


def _report(
    outcome: str | int,
    provider: FakeProvider,
    args: argparse.Namespace,
    script: Script,
    info: TextIO,
    expected: Expectations,
    command: tuple[StderrTail, list[str]],
) -> int:
    """Print how the command ended and what was recorded, then check the requests; the
    exit code (a time-out or a command that never called wins over the rules). ``command``
    is the end of its stderr and the environment it was given, to say why it never called."""
    from ..capture import RecordError, check_records, summarize

    if isinstance(outcome, int):
        print(f"command {_ended(outcome)}", file=info)
    failure = provider.failure
    if failure is not None:
        ended = "" if isinstance(outcome, int) else "; the command was ended"
        return fail(failure + ended)
    try:
        records: Sequence[Record] = provider.records
    except RecordError as e:
        return fail(str(e))
    info.write(summarize(records))
    if args.record:
        print(f"record written to {args.record}", file=info, flush=True)
    if isinstance(outcome, str) and outcome.startswith("cannot run"):
        return fail(outcome)
    if not records:
        if isinstance(outcome, str):
            return fail(outcome, code=EXIT_SUBJECT)
        return fail(_never_called(outcome, *command), code=EXIT_SUBJECT)
    print("", file=info, flush=True)
    options = group_options(args, fork_tag=script.fork_tag)
    result = check_records(
        records, options=options, subject=args.subject or "capture", strict=args.strict_bytes
    )
    overriding = EXIT_SUBJECT if isinstance(outcome, str) else None
    problem = outcome if isinstance(outcome, str) else None
    code = report(result, args, expected, command="capture", overriding=overriding, problem=problem)
    if isinstance(outcome, str):
        return fail(outcome, code=EXIT_SUBJECT)
    return code


def _ended(status: int) -> str:
    return f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"


def _never_called(status: int, tail: StderrTail, environment: list[str]) -> str:
    """Why no request was recorded: the command died first (its stderr says why), or it ran
    to its end without calling the fake (the variables it should have read)."""
    stderr = tail.text()
    said = f"; its stderr:\n{stderr}" if stderr.strip() else " (it wrote nothing to stderr)"
    if status != 0:
        return f"the command {_ended(status)} before any request{said}"
    return (
        "the command ended (status 0) without calling the fake provider: does it read the"
        " base URL and key from these variables?\n" + "\n".join(f"  {line}" for line in environment)
    )
