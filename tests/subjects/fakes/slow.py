"""Answers every scenario correctly, after 0.3 s (well within the tests' timeout)."""

import time

from _fake import assembled, run, send


def slow(request: dict) -> None:
    time.sleep(0.3)
    send(assembled(request["seq"]))


run(slow)
