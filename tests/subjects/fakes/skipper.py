"""Answers every scenario with ``skipped``: a subject that never lets a rule see a body.
A check of it must be inconclusive, never a pass."""

import json
import sys

from _fake import IMPLEMENTATION, send

for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "start":
        send({"ok": True, "version": 1, "implementation": IMPLEMENTATION})
    elif request["cmd"] == "stop":
        break
    else:
        send({"seq": request["seq"], "status": "skipped", "reason": "not implemented yet"})
