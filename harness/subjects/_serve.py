"""The subject side of the protocol for a Python ``Subject``: ``serve`` answers the harness's
lines on stdin until ``stop`` or end of input.

It lets a Python implementation run out of process (isolated from the harness, or under
another interpreter) exactly as a subject in any other language would; see
examples/python-subject/subject.py.
"""

from __future__ import annotations

import sys
import traceback
from typing import BinaryIO

import orjson

from ..protocol import (
    PROTOCOL_VERSION,
    Implementation,
    assemble_reply,
    encode_line,
    refusal_reply,
    start_reply,
)
from ..scenarios import scenario_from_json
from ._base import Outcome, Subject

__all__ = ["serve"]


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
    ``errored`` with the reason (the traceback goes to stderr) and serving goes on.
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
    )
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
            reply = _assemble(subject, request)
        else:
            print(f"serve: ignoring unknown command {command!r}", file=sys.stderr)
            continue
        sink.write(encode_line(reply))
        sink.flush()
    return 0


def _assemble(subject: Subject, request: dict[str, object]) -> dict[str, object]:
    seq = request["seq"]
    assert isinstance(seq, int)
    try:
        scenario = scenario_from_json(request["scenario"], source=f"seq {seq}")
        outcome: Outcome = subject.assemble(scenario, str(request["dialect"]))
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
