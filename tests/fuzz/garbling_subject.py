"""A protocol subject that answers as the reference does but garbles one reply.

    python3 tests/fuzz/garbling_subject.py HEX

``HEX`` is the hex of a JSON object: ``{"reply": N, "how": HOW, ...}``; reply N (0 is the
start reply, 1 the first assemble reply, ...) is replaced according to HOW:

- ``ops``: the reply object with ``ops`` applied, each ``["set", key, value]`` or
  ``["drop", key]`` (``value`` may be any JSON, huge integers and ``NaN`` included);
- ``bytes``: the line replaced by ``data`` (hex) as is (with no newline added);
- ``cut``: the reply line cut after ``at`` bytes, then the output closed and the process
  ended;
- ``crash``: the process exits with status 3 instead of replying;
- ``hang``: no reply, the process sleeps (the harness's timeout ends it);
- ``extra``: the reply, then the line ``data`` (hex);
- ``stderr``: the reply, with ``data`` (hex) written to stderr first.

The other replies are the reference's.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from harness.subjects import ReferenceSubject, serve


class _Garbling:
    def __init__(self, sink: Any, plan: dict[str, Any]) -> None:
        self.sink = sink
        self.plan = plan
        self.replies = 0
        self.pending = b""

    def write(self, data: bytes) -> int:
        self.pending += data
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            self._reply(line + b"\n")
        return len(data)

    def flush(self) -> None:
        self.sink.flush()

    def _reply(self, line: bytes) -> None:
        index = self.replies
        self.replies += 1
        if index != self.plan.get("reply"):
            self.sink.write(line)
            return
        how = self.plan.get("how")
        data = bytes.fromhex(self.plan.get("data", ""))
        if how == "ops":
            reply = json.loads(line)
            for op in self.plan.get("ops", []):
                if op[0] == "set":
                    reply[op[1]] = op[2]
                else:
                    reply.pop(op[1], None)
            text = json.dumps(reply, ensure_ascii=False)  # huge integers, NaN as Python writes
            self.sink.write(text.encode("utf-8", "surrogatepass") + b"\n")
        elif how == "bytes":
            self.sink.write(data)
        elif how == "cut":
            self.sink.write(line[: self.plan.get("at", 0)])
            self.sink.flush()
            os._exit(0)
        elif how == "crash":
            self.sink.flush()
            os._exit(3)
        elif how == "hang":
            self.sink.flush()
            time.sleep(600)
        elif how == "extra":
            self.sink.write(line + data + b"\n")
        elif how == "stderr":
            sys.stderr.buffer.write(data)
            sys.stderr.flush()
            self.sink.write(line)
        else:
            self.sink.write(line)


if __name__ == "__main__":
    plan = json.loads(bytes.fromhex(sys.argv[1])) if len(sys.argv) > 1 else {}
    sys.exit(serve(ReferenceSubject(), stdout=_Garbling(sys.stdout.buffer, plan)))  # type: ignore[arg-type]
