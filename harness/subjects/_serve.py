"""The subject side of the protocol for a Python ``Subject``: ``serve`` answers the harness's
lines on stdin until ``stop`` or end of input.

It lets a Python implementation run out of process (isolated from the harness, or under
another interpreter) exactly as a subject in any other language would; see
examples/python-subject/subject.py.
"""

from __future__ import annotations

import sys
import traceback
from typing import BinaryIO, Final

import orjson

from ..protocol import (
    PROTOCOL_VERSION,
    SAME_SCENARIO,
    Implementation,
    Outcome,
    Subject,
    assemble_reply,
    encode_line,
    refusal_reply,
    start_reply,
)
from ..scenarios import Scenario, scenario_from_json

__all__ = ["serve"]

_NO_SCENARIO: Final = "same_scenario, but no scenario was sent before it"


class _Unheld(Exception):
    """A short ``assemble`` whose scenario is not held; ``str()`` is the reply's message."""


class _Held:
    """The scenario of the previous ``assemble``, for a short one (``same_scenario``): the
    scenario read or, when reading it failed, why (a short form is answered as its full
    scenario was, never with an older scenario)."""

    __slots__ = ("error", "scenario")

    def __init__(self) -> None:
        self.scenario: Scenario | None = None
        self.error: str | None = None

    def read(self, request: dict[str, object], source: str) -> Scenario:
        """The scenario ``request`` names: read from its ``scenario``, or the one held."""
        if "scenario" not in request and request.get("same_scenario") is True:
            if self.error is not None:
                raise _Unheld(self.error)
            if self.scenario is None:
                raise _Unheld(_NO_SCENARIO)
            return self.scenario
        self.scenario = self.error = None
        try:
            self.scenario = scenario_from_json(request["scenario"], source=source)
        except Exception as e:
            self.error = f"{type(e).__name__}: {e}"
            raise
        return self.scenario


def serve(
    subject: Subject,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    *,
    version: str | None = None,
    homepage: str | None = None,
) -> int:
    """Serve ``subject`` over JSON lines; returns the exit code (0 on ``stop`` or EOF).

    A scenario the subject cannot read, or an ``assemble`` that raises, is answered
    ``errored`` with the reason (the traceback goes to stderr) and serving goes on. It
    declares ``same-scenario``: the last scenario read is kept for a short ``assemble``, so
    a scenario sent in several dialects one after the other is read once.
    """
    source = stdin if stdin is not None else sys.stdin.buffer
    sink = stdout if stdout is not None else sys.stdout.buffer
    implementation = Implementation(
        name=subject.name,
        language="python",
        dialects=tuple(subject.dialects),
        lifecycles=tuple(subject.lifecycles),
        version=version,
        homepage=homepage,
        features=(SAME_SCENARIO,),
    )
    held = _Held()
    for line in source:
        if not line.strip():
            continue
        request = orjson.loads(line)
        command = request.get("cmd")
        if command == "stop":
            return 0
        if command == "start":
            reply = (
                start_reply(implementation)
                if request.get("version") == PROTOCOL_VERSION
                else refusal_reply(f"this subject speaks protocol version {PROTOCOL_VERSION}")
            )
        elif command == "assemble":
            reply = _assemble(subject, request, held)
        else:
            print(f"serve: ignoring unknown command {command!r}", file=sys.stderr)
            continue
        sink.write(encode_line(reply))
        sink.flush()
    return 0


def _assemble(subject: Subject, request: dict[str, object], held: _Held) -> dict[str, object]:
    """The reply to one ``assemble``, full or short."""
    seq = request["seq"]
    assert isinstance(seq, int)
    try:
        scenario = held.read(request, source=f"seq {seq}")
        outcome: Outcome = subject.assemble(scenario, str(request["dialect"]))
    except _Unheld as e:
        return assemble_reply(seq, "errored", message=str(e))
    except Exception as e:
        traceback.print_exc(file=sys.stderr)
        return assemble_reply(seq, "errored", message=f"{type(e).__name__}: {e}")
    return assemble_reply(
        seq,
        outcome.status,
        parent=outcome.parent,
        children=outcome.children,
        follow_ups=outcome.follow_ups,
        parent_next=outcome.parent_next,
        message=outcome.message,
    )
