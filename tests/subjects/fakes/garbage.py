"""Answers a "bad-<what>" scenario with the garbage <what> names, then carries on."""

import json
import sys

from _fake import BODY, IMPLEMENTATION, run, send


def garbage(request: dict) -> None:
    seq, what = request["seq"], request["scenario"]["id"].removeprefix("bad-")
    replies = {
        "array": [1, 2, 3],
        "no-seq": {"status": "assembled", "parent": None, "children": []},
        "status": {"seq": seq, "status": "done"},
        "missing": {"seq": seq, "status": "assembled", "parent": None},
        "unknown-key": {"seq": seq, "status": "skipped", "reason": "x", "chidren": []},
        "body-object": {
            "seq": seq,
            "status": "assembled",
            "parent": json.loads(BODY),
            "children": [],
        },
        "body-surrogate": {
            "seq": seq,
            "status": "assembled",
            "parent": None,
            "children": ['{"a":"\ud800"}'],  # a lone surrogate: no text UTF-8 can carry
        },
        "start-reply": {"ok": True, "version": 1, "implementation": IMPLEMENTATION},
        "echo": request,
    }
    if what == "text":
        print("this is not json", flush=True)
    elif what == "bytes":
        sys.stdout.buffer.write(b"\xff\xfe garbage\n")
        sys.stdout.flush()
    elif what == "log":
        print("debug: assembling now", flush=True)
        send({"seq": seq, "status": "skipped", "reason": "too late"})
    else:
        send(replies[what])


run(garbage)
