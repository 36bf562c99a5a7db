"""Answers a "bad" scenario twice: the second reply at once, or after a pause for a
"bad-late" scenario (so that it arrives after the harness took the first)."""

import time

from _fake import assembled, run, send


def twice(request: dict) -> None:
    send(assembled(request["seq"]))
    if request["scenario"]["id"] == "bad-late":
        time.sleep(0.3)
    send(assembled(request["seq"]))


run(twice)
