"""The front door's functions: what ``prefix-harness check``, ``diff``, ``capture`` and
``check-log`` do, as Python calls that return what the commands report on and print nothing
(docs/api.md).

Each composes the packages the command line uses, with the command's defaults. What a command
says in one sentence and exits 2 for (a bad file, a bad argument) is an ``InputError`` here;
the verdict is the result's ``exit_code``, the README's table. The machinery is imported when a
function is called: importing ``harness`` costs nothing more than the package itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .capture import CheckResult, GroupOptions, Record
    from .check import CheckRun, Expectations
    from .prefix import PrefixComparison
    from .protocol import Subject
    from .scenarios import Scenario

__all__ = [
    "Captured",
    "InputError",
    "capture_command",
    "check_log",
    "check_subject",
    "diff",
]

_Path = str | Path


class InputError(ValueError):
    """Bad input or arguments: ``str()`` is the one sentence the command line prints when it
    exits 2 (a file that cannot be read, a body that is not a request, an unknown dialect)."""


def check_subject(
    subject: str | Subject = "reference",
    *,
    dialects: str | Sequence[str] | None = None,
    examples: int = 25,
    seed: int | None = None,
    fixtures: _Path | Sequence[Scenario] | None = None,
    expect: _Path | Expectations | None = None,
    jobs: int = 1,
    timeout: float = 10.0,
    max_hangs: int = 3,
    deadline: float | None = None,
) -> CheckRun:
    """``prefix-harness check``: run a subject over the fixtures and ``examples`` generated
    scenarios per dialect and judge every outcome with every rule.

    ``subject`` is a ``Subject`` or a spec of the command line (``reference``,
    ``python:package.module:factory``, ``cmd:<command line>``; a ``cmd:`` subject is started,
    given ``timeout`` seconds per scenario, and stopped). ``dialects``: those to check
    (default: every dialect the subject has; one it lacks is reported not applicable).
    ``fixtures``: a file or folder of fixture JSON, or scenarios (default: the bundled
    corpus). ``expect``: known failures, a TOML file or ``Expectations``. ``jobs`` above 1
    runs the scenarios in that many processes, each with its own subject, and needs a spec.
    The result's ``exit_code`` is the command's; a subject that cannot be started raises
    ``SubjectStartError``.
    """
    from .check import ExpectationError, Expectations, bundled_fixtures, load_expectations
    from .check import run_check as run
    from .scenarios import ScenarioFormatError, load_fixtures
    from .subjects import SubprocessOptions, load_subject, timeout_problem

    if examples < 0:
        raise InputError("examples must be 0 or more")
    for what, seconds in (("timeout", timeout), ("deadline", deadline)):
        problem = None if seconds is None else timeout_problem(seconds)
        if problem is not None:
            raise InputError(f"{what} {problem}, not {seconds:g}")
    if max_hangs < 0:
        raise InputError("max_hangs must be 0 (never stop) or more")
    if jobs < 1:
        raise InputError(f"jobs must be 1 or more, not {jobs}")
    if jobs > 1 and not isinstance(subject, str):
        raise InputError("jobs above 1 need the subject as a spec: each process loads its own")
    try:
        if fixtures is None or isinstance(fixtures, str | Path):
            scenarios: Sequence[Scenario] = load_fixtures(fixtures or bundled_fixtures())
        else:
            scenarios = tuple(fixtures)
        if expect is None or isinstance(expect, Expectations):
            expectations = expect or Expectations()
        else:
            expectations = load_expectations(expect)
    except (ScenarioFormatError, ExpectationError) as e:
        raise InputError(str(e)) from e
    asked = (dialects,) if isinstance(dialects, str) else dialects

    def on(target: Subject, spawn: Callable[[], Subject] | None) -> CheckRun:
        return run(
            target,
            scenarios,
            dialects=list(asked or target.dialects),
            examples=examples,
            rng_seed=seed,
            expectations=expectations,
            max_hangs=max_hangs,
            deadline=deadline,
            jobs=jobs,
            spawn=spawn,
        )

    if not isinstance(subject, str):  # an object: its owner starts and stops it
        return on(subject, None)
    options = SubprocessOptions(timeout=timeout)
    try:
        loaded = load_subject(subject, options=options)
    except ValueError as e:
        raise InputError(str(e)) from e
    with loaded:
        return on(loaded, partial(load_subject, subject, options=options))


def diff(
    parent: bytes | _Path,
    fork: bytes | _Path,
    *,
    dialect: str | None = None,
    max_body_size: int | None = None,
    strict_bytes: bool = False,
) -> PrefixComparison:
    """``prefix-harness diff``: whether ``fork``, sent right after ``parent``, reads the
    parent's cached prefix (judged on their rendered prefixes with the provider's cache
    model; ``strict_bytes``: whether its bytes as sent start with the parent's whole prefix),
    and where and how they part when it does not.

    Each side is a body exactly as POSTed (``bytes``) or the name of a file holding one.
    The dialect is ``dialect``, else detected from the bodies. A file larger than
    ``max_body_size`` bytes (default: 128 MB) is refused. The result's ``preserved`` is the
    verdict (the command exits 0 when it holds, 1 when it does not).
    """
    from ._bodies import (
        DEFAULT_MAX_BODY_BYTES,
        BodyError,
        choose_dialect,
        decode_body,
        parse_body,
        read_body,
    )
    from .dialects import all_dialects
    from .prefix import StreamError, compare

    if dialect is not None and dialect not in all_dialects():
        known = ", ".join(all_dialects())
        raise InputError(f"unknown dialect {dialect!r}; known: {known}")
    limit = DEFAULT_MAX_BODY_BYTES if max_body_size is None else max_body_size
    try:
        sources: dict[str, str] = {}
        decoded: dict[str, Any] = {}
        for side, body in (("parent", parent), ("fork", fork)):
            if isinstance(body, bytes):
                source, data = side, body
            else:
                source = os.fspath(body)
                data = read_body(source, max_bytes=limit)
            sources[side] = source
            decoded[source] = decode_body(data, source=source)
        chosen, _ = choose_dialect(decoded, name=dialect)
        read = {s: parse_body(chosen, decoded[src], source=src) for s, src in sources.items()}
        return compare(read["parent"], read["fork"], strict=strict_bytes)
    except BodyError as e:
        raise InputError(str(e)) from e
    except StreamError as e:
        raise InputError(f"{sources['parent']} or {sources['fork']}: {e}") from e


def check_log(
    log: _Path,
    *,
    dialect: str | None = None,
    subject: str | None = None,
    fork_tag: str | None = None,
    directive_key: str | None = None,
    fork_tool: str | None = None,
    parent_mark: str = "parent",
    parent_id: str | None = None,
    strict_bytes: bool = False,
) -> CheckResult:
    """``prefix-harness check-log``: group the requests of a JSON-lines log (a record of
    ``capture``, or minimal ``{"body": ...}`` lines) into conversations and check each group.

    ``dialect`` is the wire format of lines that name none (default: from the line's path,
    else detected). ``subject`` is the name in the reports (default: the log's file name);
    the other options are the command's grouping options (docs/capture.md). The result's
    ``exit_code`` is the command's without ``--expect``.
    """
    from .capture import LogError, check_requests, read_log

    options = _grouping(fork_tag, directive_key, fork_tool, parent_mark, parent_id)
    try:
        requests, ignored = read_log(log, dialect=dialect)
        name = subject or os.path.basename(os.fspath(log))
        return check_requests(requests, ignored, options=options, subject=name, strict=strict_bytes)
    except LogError as e:
        raise InputError(str(e)) from e


@dataclass(frozen=True, slots=True)
class Captured:
    """What ``capture_command`` saw: how the command ended, what it sent, and the check.

    ``ended`` is the command's exit status (negative: killed by that signal), or the sentence
    saying why it has none (it could not be run, timed out, the record could not be written).
    ``records`` are the requests the fake provider recorded, secrets redacted; ``result`` is
    their check, inconclusive when there are none.
    """

    ended: int | str
    records: tuple[Record, ...]
    result: CheckResult

    @property
    def problem(self) -> str | None:
        """Why the capture is not a verdict on its own (the command line exits 3): the
        command did not end by itself, or never called the provider; else None."""
        if isinstance(self.ended, str):
            return self.ended
        if not self.records:
            return "the command never called the fake provider"
        return None

    @property
    def exit_code(self) -> int:
        """The command line's: 3 for a ``problem``, else the check's (0, 1 or 4)."""
        return 3 if self.problem is not None else self.result.exit_code


def capture_command(
    command: Sequence[str],
    *,
    dialect: str,
    script: _Path | Mapping[str, Any],
    record: _Path | None = None,
    timeout: float = 300.0,
    max_request_size: int | None = None,
    subject: str = "capture",
    fork_tag: str | None = None,
    directive_key: str | None = None,
    fork_tool: str | None = None,
    parent_mark: str = "parent",
    parent_id: str | None = None,
) -> Captured:
    """``prefix-harness capture``: run ``command`` against a scripted fake provider of
    ``dialect`` on loopback, record every request it makes, then group and check them.

    ``script`` says which model turn answers which request: a script file, or its decoded
    JSON (docs/capture.md). ``record`` is the JSON-lines record to write (default: none, the
    records are kept in memory). The command is ended, with everything it started, after
    ``timeout`` seconds. The grouping options are ``check_log``'s (``fork_tag`` defaults to
    the script's). The command's output is its own: nothing is captured or printed here.
    """
    from .capture import (
        DEFAULT_MAX_REQUEST_BYTES,
        FakeProvider,
        LoopbackError,
        RecordError,
        ScriptError,
        check_records,
        load_script,
        parse_script,
        run_command,
    )

    if not command:
        raise InputError("no command given to run")
    if not timeout > 0:
        raise InputError("timeout must be more than 0 seconds")
    size = DEFAULT_MAX_REQUEST_BYTES if max_request_size is None else max_request_size
    try:
        plan = parse_script(script) if isinstance(script, Mapping) else load_script(script)
    except ScriptError as e:
        raise InputError(str(e)) from e
    tag = plan.fork_tag if fork_tag is None else fork_tag
    options = _grouping(tag, directive_key, fork_tool, parent_mark, parent_id)
    try:
        provider = FakeProvider(dialect, plan, record=record, max_request_bytes=size)
        provider.start()
    except (LoopbackError, ValueError) as e:
        raise InputError(str(e)) from e
    except OSError as e:
        raise InputError(f"cannot start the fake provider: {e.strerror or e}") from e
    try:
        ended = run_command(command, provider, timeout)
    finally:
        provider.stop()
    try:
        records = tuple(provider.records)
    except RecordError as e:
        raise InputError(str(e)) from e
    return Captured(ended, records, check_records(records, options=options, subject=subject))


def _grouping(
    fork_tag: str | None,
    directive_key: str | None,
    fork_tool: str | None,
    parent_mark: str,
    parent_id: str | None,
) -> GroupOptions:
    from .capture import DEFAULT_FORK_TAG, GroupOptions

    if fork_tag == "":
        raise InputError("fork_tag must not be empty")
    return GroupOptions(
        fork_tag=fork_tag or DEFAULT_FORK_TAG,
        directive_key=directive_key,
        fork_tool=fork_tool,
        parent_mark=parent_mark,
        parent_id=parent_id,
    )
