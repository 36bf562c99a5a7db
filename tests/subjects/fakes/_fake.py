"""The loop every fake subject shares: it speaks the protocol correctly, except for scenarios
whose id starts with "bad", which it hands to the fake's own misbehaviour.

Standard library only, so a fake starts fast and never depends on the harness it tests.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

BODY = '{"messages":[{"role":"user","content":"hi"}]}'
IMPLEMENTATION = {
    "name": "fake",
    "language": "python",
    "dialects": ["openai"],
    "lifecycles": ["one-shot"],
}


def send(message: Any) -> None:
    """One protocol line on stdout."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def assembled(seq: int, body: str = BODY) -> dict[str, Any]:
    return {"seq": seq, "status": "assembled", "parent": body, "children": [body]}


def run(misbehave: Callable[[dict[str, Any]], None], *, every: bool = False) -> None:
    """Serve until stop or end of input; ``misbehave(request)`` answers the "bad" scenarios
    (``every``: all of them)."""
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            send({"ok": True, "version": 1, "implementation": IMPLEMENTATION})
        elif request["cmd"] == "stop":
            return
        elif every or request["scenario"]["id"].startswith("bad"):
            misbehave(request)
        else:
            send(assembled(request["seq"]))
