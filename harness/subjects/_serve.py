"""The subject side of the protocol for a Python ``Subject``: ``serve`` answers the harness's
lines on stdin until ``stop`` or end of input.

It lets a Python implementation run out of process (isolated from the harness, or under
another interpreter) exactly as a subject in any other language would; see
examples/python-subject/subject.py.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, BinaryIO, Final

import orjson

from ..protocol import (
    PROTOCOL_VERSION,
    Implementation,
    assemble_reply,
    encode_line,
    refusal_reply,
    start_reply,
)
from ..scenarios import Scenario, scenario_from_json
from ._base import Outcome, Subject

__all__ = ["serve"]

MEMO_SCENARIOS: Final = 1024
"""How many scenarios one ``serve`` keeps read at most (a default check sends 50)."""
MEMO_BYTES: Final = 16 * 2**20
"""How many bytes of compact JSON the scenarios kept hold at most (a default check's: some
150 kB; a scenario's objects take about 3.5 times its JSON)."""


class ScenarioMemo:
    """The scenarios one ``serve`` has read, keyed by the exact bytes of their compact JSON.

    A check sends each scenario once per dialect, as separate requests (every scenario in one
    dialect, then in the next), and reading one (its schema check above all) costs far more
    than the protocol. The key is exact for values decoded by ``orjson.loads`` (JSON types
    only, finite floats, which ``orjson.dumps`` writes back one to one): equal bytes, the same
    scenario. A scenario that fails to read is not kept, so its error is raised afresh each
    time. Once full the memo keeps what it holds and reads new scenarios without keeping
    them: in the harness's cycle through the dialects, dropping old entries for new ones
    would lose every later hit.
    """

    __slots__ = ("_read", "_size", "max_bytes", "max_count")

    def __init__(self, max_count: int = MEMO_SCENARIOS, max_bytes: int = MEMO_BYTES) -> None:
        self._read: dict[bytes, Scenario] = {}
        self._size = 0
        self.max_count = max_count
        self.max_bytes = max_bytes

    def __len__(self) -> int:
        return len(self._read)

    @property
    def size(self) -> int:
        """The bytes of compact JSON the kept scenarios hold."""
        return self._size

    def read(self, data: Any, *, source: str) -> Scenario:
        """``scenario_from_json(data, source=source)``, from the memo when read before."""
        try:
            key = orjson.dumps(data)
        except orjson.JSONEncodeError:  # nested too deeply to encode: read it as it is
            return scenario_from_json(data, source=source)
        found = self._read.get(key)
        if found is not None:
            return found
        scenario = scenario_from_json(data, source=source)
        if len(self._read) < self.max_count and self._size + len(key) <= self.max_bytes:
            self._read[key] = scenario
            self._size += len(key)
        return scenario


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
    ``errored`` with the reason (the traceback goes to stderr) and serving goes on. Scenarios
    read are kept (``ScenarioMemo``): the same scenario sent again is not read again.
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
    memo = ScenarioMemo()
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
            reply = _assemble(subject, request, memo)
        else:
            print(f"serve: ignoring unknown command {command!r}", file=sys.stderr)
            continue
        sink.write(encode_line(reply))
        sink.flush()
    return 0


def _assemble(
    subject: Subject, request: dict[str, object], memo: ScenarioMemo
) -> dict[str, object]:
    """The reply to one ``assemble`` (``request`` decoded by ``orjson.loads``, as ``memo``
    needs)."""
    seq = request["seq"]
    assert isinstance(seq, int)
    try:
        scenario = memo.read(request["scenario"], source=f"seq {seq}")
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
