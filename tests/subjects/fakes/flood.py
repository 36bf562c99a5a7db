"""Floods its stdout without a newline on every scenario: under a memory limit the reply
cannot be held."""

import os

from _fake import run


def flood(request: dict) -> None:
    block = b"x" * (1 << 20)
    while True:
        os.write(1, block)


run(flood, every=True)
