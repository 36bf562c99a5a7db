"""Writes huge output: "bad-endless" sends 3 MiB without a newline; "bad-big" a valid reply
whose body is over 2 MiB."""

import sys
import time

from _fake import assembled, run, send


def huge(request: dict) -> None:
    if request["scenario"]["id"] == "bad-endless":
        sys.stdout.write("x" * (3 * 1024 * 1024))
        sys.stdout.flush()
        time.sleep(3600)
    body = '{"messages":[{"role":"user","content":"' + "y" * (2 * 1024 * 1024) + '"}]}'
    send(assembled(request["seq"], body))


run(huge)
