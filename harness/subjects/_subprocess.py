"""A subject in any language: a command speaking the JSON-lines protocol (docs/protocol.md).

``SubprocessSubject`` starts the command with a versioned handshake, sends one ``assemble``
per scenario and reads one reply, within a timeout. A crash, a hang or a line that breaks
the protocol becomes a ``SubjectFailure`` for that scenario naming what was wrong (with
the exit code and the stderr tail); the process is ended and started again for the next
scenario, so one bad scenario does not end the run.

To a process that declared the feature ``same-scenario`` a scenario sent again right after
itself (the same object, in another dialect) goes as a short ``assemble`` naming the
previous one; the first ``assemble`` of every process is full.

A line nobody asked for is a protocol error too: one that arrives with a reply, or before
the next request, or after the last reply until the process exits on ``stop`` (``finish``
reports that one, naming the scenario of the last reply).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, cast

import orjson

from .._interrupt import interruption
from ..protocol import (
    SAME_SCENARIO,
    Implementation,
    MessageKind,
    Outcome,
    ProtocolError,
    SubjectRefused,
    assemble_request,
    decode_line,
    encode_assemble_parts,
    encode_line,
    encode_same_scenario,
    read_assemble_reply,
    read_start_reply,
    same_scenario_request,
    start_request,
    stop_request,
    validate_message,
)
from ..scenarios import Lifecycle, Scenario, scenario_to_json
from ._failure import FailureKind, SubjectFailure, SubjectStartError
from ._process import LineTooLong, OutputTooLarge, ProcessExited, ProcessTimeout, SubjectProcess

__all__ = ["MAX_SECONDS", "SubprocessOptions", "SubprocessSubject", "timeout_problem"]

MiB: Final = 1024 * 1024
_EXCERPT: Final = 120
MAX_SECONDS: Final = 86_400.0
"""The longest timeout there is: a day (more is no timeout, and ``select`` refuses it)."""


def timeout_problem(seconds: float) -> str | None:
    """Why ``seconds`` is no timeout (not a finite number above 0 and at most a day), or None."""
    if not isinstance(seconds, int | float) or math.isnan(seconds):
        return "must be a number of seconds"
    if seconds <= 0:
        return "must be more than 0 seconds"
    if seconds > MAX_SECONDS:
        return f"must be at most {MAX_SECONDS:g} seconds (a day)"
    return None


@dataclass(frozen=True, slots=True)
class SubprocessOptions:
    """How a subject process is run. Times are in seconds.

    ``timeout`` bounds one scenario (request written, reply read); ``validate`` checks
    every message both ways against the protocol's JSON Schemas (``--validate-protocol``).
    """

    timeout: float = 10.0
    start_timeout: float = 10.0
    stop_timeout: float = 2.0
    max_line_bytes: int = 64 * MiB
    stderr_limit: int = 64 * 1024
    validate: bool = False
    cwd: str | None = None

    def __post_init__(self) -> None:
        for name in ("timeout", "start_timeout", "stop_timeout"):
            problem = timeout_problem(getattr(self, name))
            if problem is not None:
                raise ValueError(f"{name} {problem}")
        if self.max_line_bytes < 1024 or self.stderr_limit < 1:
            raise ValueError("max_line_bytes must be at least 1024 and stderr_limit at least 1")


class SubprocessSubject:
    """A subject process. ``start()`` (or the first use) runs the handshake; ``close()``
    stops it. ``assemble`` never raises for a subject's misbehaviour: it returns a
    ``SubjectFailure``. Not thread-safe; one scenario at a time."""

    def __init__(self, argv: Sequence[str], options: SubprocessOptions | None = None) -> None:
        if isinstance(argv, str) or not argv:
            raise ValueError("a subject command is a non-empty sequence of arguments")
        self.argv = tuple(argv)
        self.options = options or SubprocessOptions()
        self.starts = 0
        self._process: SubjectProcess | None = None
        self._implementation: Implementation | None = None
        self._seq = 0
        self._broken: SubjectStartError | None = None
        self._last: tuple[int, str] | None = None
        """The seq and scenario of the last reply read from the running process."""
        """The last scenario encoded and its JSON bytes, for its runs in other dialects."""
        self._held: Scenario | None = None
        """The scenario of the running process's previous ``assemble`` (a reference, compared
        by identity), when that process declared ``same-scenario``; None after a (re)start."""

    def __repr__(self) -> str:
        return f"SubprocessSubject({shlex.join(self.argv)!r})"

    # --- Subject ----------------------------------------------------------------------------

    @property
    def implementation(self) -> Implementation:
        """What the subject said of itself; starts it if needed (``SubjectStartError``)."""
        return self._implementation or self.start()

    @property
    def name(self) -> str:
        return self.implementation.name

    @property
    def dialects(self) -> tuple[str, ...]:
        return self.implementation.dialects

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]:
        return cast(tuple[Lifecycle, ...], self.implementation.lifecycles)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        """The subject's reply for ``scenario``, or a ``SubjectFailure``.

        Raises ``ProtocolError`` only when validating and the harness's own request breaks
        its schema (a scenario the schema refuses; bad input, not the subject's fault).
        """
        try:
            implementation = self.start()
        except SubjectStartError as e:
            self._broken = self._broken or e
            return SubjectFailure.of(
                "start",
                scenario.id,
                str(e.detail),
                exit_code=e.exit_code,
                stderr_tail=e.stderr_tail,
            )
        process = self._process
        assert process is not None
        self._seq += 1
        seq = self._seq
        extra = process.unrequested()
        if extra is not None:
            detail = f"before seq {seq}, {self._unrequested_after()} another line arrived"
            return self._fail("protocol", scenario, f"{detail}: {_excerpt(extra)}")
        short = self._held is scenario
        sent: bytes | tuple[bytes, ...]
        if self.options.validate:
            request = (
                same_scenario_request(seq, dialect)
                if short
                else assemble_request(seq, dialect, scenario_to_json(scenario))
            )
            _check("assemble", request, "the harness's request")
            sent = encode_line(request)
        elif short:
            sent = encode_same_scenario(seq, dialect)
        else:
            sent = encode_assemble_parts(seq, dialect, orjson.dumps(scenario_to_json(scenario)))
        try:
            line = process.exchange(sent, self.options.timeout)
        except ProcessTimeout:
            detail = f"no reply to seq {seq} within {self.options.timeout:g} s"
            return self._fail("hang", scenario, detail)
        except ProcessExited as e:
            return self._fail(
                "crash",
                scenario,
                _exited(e, f"seq {seq}"),
                exit_code=e.exit_code,
                stalled=e.exit_code is None,
            )
        except LineTooLong as e:
            return self._fail("protocol", scenario, f"reply to seq {seq} {_too_long(e)}")
        except OutputTooLarge as e:
            return self._fail("protocol", scenario, f"reply to seq {seq} {_too_large(e)}")
        if SAME_SCENARIO in implementation.features:
            self._held = scenario  # the process has it now, whatever its reply
        try:
            message = decode_line(line)
            if self.options.validate:
                _check("assemble-reply", message, "the reply")
            reply = read_assemble_reply(message, seq)
        except ProtocolError as e:
            return self._fail("protocol", scenario, f"reply to seq {seq}: {e}: {_excerpt(line)}")
        except MemoryError:
            detail = f"reply to seq {seq} ({len(line):,} bytes) is too large to read in memory"
            return self._fail("protocol", scenario, detail)
        self._last = (seq, scenario.id)
        extra = process.unrequested()
        if extra is not None:
            detail = f"a second line came after the reply to seq {seq}: {_excerpt(extra)}"
            return self._fail("protocol", scenario, detail)
        return Outcome(
            reply.status,
            parent=reply.parent,
            children=reply.children,
            follow_ups=reply.follow_ups,
            parent_next=reply.parent_next,
            message=reply.message,
        )

    # --- lifetime ---------------------------------------------------------------------------

    @property
    def restarts(self) -> int:
        """How many times a process was started after the first (after failures, or a close)."""
        return max(0, self.starts - 1)

    @property
    def pid(self) -> int | None:
        """The running process's id, if one runs."""
        return None if self._process is None else self._process.pid

    def start(self) -> Implementation:
        """Start the process and run the handshake, unless it runs; ``SubjectStartError``."""
        if self._process is not None and self._implementation is not None:
            return self._implementation
        if self._broken is not None:
            raise SubjectStartError(
                f"not run: the subject could not be started earlier ({self._broken})",
                stderr_tail=self._broken.stderr_tail,
            )
        options = self.options
        process = SubjectProcess(
            self.argv,
            cwd=options.cwd,
            max_line_bytes=options.max_line_bytes,
            stderr_limit=options.stderr_limit,
        )
        try:
            implementation = self._handshake(process)
        except BaseException:  # it could not start, or a signal ends the run meanwhile
            process.kill()
            raise
        self._process, self._implementation = process, implementation
        self._held = None
        self.starts += 1
        return implementation

    def _handshake(self, process: SubjectProcess) -> Implementation:
        command = shlex.join(self.argv)
        request = start_request()
        if self.options.validate:
            _check("start", request, "the harness's request")
        try:
            line = process.exchange(encode_line(request), self.options.start_timeout)
            message = decode_line(line)
            if self.options.validate:
                _check("start-reply", message, "the start reply")
            return read_start_reply(message)
        except ProcessTimeout:
            detail = f"{command} did not answer start within {self.options.start_timeout:g} s"
            raise SubjectStartError(detail, stderr_tail=process.stderr_tail()) from None
        except ProcessExited as e:
            raise SubjectStartError(
                f"{command} {_exited(e, 'start')}",
                exit_code=e.exit_code,
                stderr_tail=process.stderr_tail(),
            ) from None
        except LineTooLong as e:
            detail = f"{command}: the reply to start {_too_long(e)}"
            raise SubjectStartError(detail, stderr_tail=process.stderr_tail()) from None
        except OutputTooLarge as e:
            detail = f"{command}: the reply to start {_too_large(e)}"
            raise SubjectStartError(detail, stderr_tail=process.stderr_tail()) from None
        except SubjectRefused as e:
            raise SubjectStartError(f"{command}: {e}", stderr_tail=process.stderr_tail()) from None
        except ProtocolError as e:
            raise SubjectStartError(
                f"{command}: bad reply to start: {e}: {_excerpt(line)}",
                stderr_tail=process.stderr_tail(),
            ) from None

    def _fail(
        self,
        kind: FailureKind,
        scenario: Scenario,
        detail: str,
        *,
        exit_code: int | None = None,
        stalled: bool = False,
    ) -> SubjectFailure:
        """End the process (the next scenario starts another) and describe the failure."""
        process = self._process
        assert process is not None
        tail = process.stderr_tail()
        code = process.kill()
        self._process = None
        self._last = None
        self._held = None
        if kind == "crash" and exit_code is None:
            exit_code = code
        return SubjectFailure.of(
            kind,
            scenario.id,
            detail + "; the subject is restarted for the next scenario",
            exit_code=exit_code,
            stderr_tail=tail,
            stalled=stalled,
        )

    def _unrequested_after(self) -> str:
        if self._last is None:
            return "after the reply to start"
        seq, scenario = self._last
        return f"after the reply to seq {seq} (scenario {scenario!r})"

    def finish(self) -> tuple[SubjectFailure, ...]:
        """Stop the process as ``close()`` does, and report what it wrote on stdout after
        its last reply (a second reply to the last request): a protocol error of the
        scenario of that reply. Nothing when no process runs."""
        process = self._process
        if process is None:
            return ()
        where = self._last[1] if self._last is not None else "start"
        after = self._unrequested_after()
        self.close()
        extra = process.unread()
        if extra is None:
            return ()
        detail = f"{after}, before it exited, the subject wrote another line"
        failure = SubjectFailure.of(
            "protocol", where, f"{detail}: {_excerpt(extra)}", stderr_tail=process.stderr_tail()
        )
        return (failure,)

    def close(self) -> None:
        """Send ``stop``, wait ``stop_timeout``, then terminate/kill; idempotent."""
        if self._process is not None:
            self._process.stop(encode_line(stop_request()), self.options.stop_timeout)
            self._process = None
            self._last = None
            self._held = None

    def __enter__(self) -> SubprocessSubject:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        signalled = isinstance(exc, KeyboardInterrupt) or interruption(exc) is not None
        if signalled:  # a signal ends the run (its exception, or one raised over it): no farewell
            self.kill()
        else:
            self.close()

    def kill(self) -> None:
        """End the process and everything it started now (SIGTERM, then SIGKILL); idempotent."""
        process, self._process = self._process, None
        self._last = None
        self._held = None
        if process is not None:
            process.kill()


def _check(kind: MessageKind, message: Any, what: str) -> None:
    problems = validate_message(kind, message)
    if problems:
        raise ProtocolError(f"{what} breaks the {kind} schema: {'; '.join(problems)}")


def _exited(e: ProcessExited, during: str) -> str:
    if e.exit_code is None:
        return f"closed its stdout during {during} but kept running"
    mid = " in the middle of a line" if e.partial else ""
    return f"exited{mid} during {during}"


def _too_large(e: OutputTooLarge) -> str:
    return (
        f"could not be held in memory: out of memory after {e.held:,} bytes of it"
        " without its newline"
    )


def _too_long(e: LineTooLong) -> str:
    return f"is over the {e.limit:,}-byte line limit without its newline"


def _excerpt(line: bytes) -> str:
    shown = line[:_EXCERPT].decode("utf-8", errors="backslashreplace")
    more = f"... ({len(line):,} bytes)" if len(line) > _EXCERPT else ""
    return f"got {shown!r}{more}"
