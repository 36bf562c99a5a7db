"""Answers a "bad" scenario with the wrong seq."""

from _fake import assembled, run, send


def wrong_seq(request: dict) -> None:
    send(assembled(request["seq"] + 1))


run(wrong_seq)
