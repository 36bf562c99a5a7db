"""Answers every scenario with child bodies that are no JSON: the request dict written with
Python's ``repr`` (single quotes), a serializer bug. The protocol is kept; rule well-formed
fails, saying where the text breaks."""

import json

from _fake import BODY, run, send


def reply(request: dict) -> None:
    directives = request["scenario"].get("directives") or ["go"]
    children = [repr({**json.loads(BODY), "user": d}) for d in directives]
    send({"seq": request["seq"], "status": "assembled", "parent": BODY, "children": children})


run(reply, every=True)
