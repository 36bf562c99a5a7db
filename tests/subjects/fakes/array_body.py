"""Answers every scenario with child bodies that are JSON arrays (the messages without the
request around them), a serializer bug. The protocol is kept; rule well-formed fails, saying
that the body is an array, not an object."""

import json

from _fake import BODY, run, send


def reply(request: dict) -> None:
    directives = request["scenario"].get("directives") or ["go"]
    messages = json.loads(BODY)["messages"]
    children = [json.dumps([*messages, {"role": "user", "content": d}]) for d in directives]
    send({"seq": request["seq"], "status": "assembled", "parent": BODY, "children": children})


run(reply, every=True)
