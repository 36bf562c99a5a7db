"""Exits with code 7 in the middle of a "bad" scenario, after some last words on stderr
(a megabyte of them for "bad-noisy", to show stderr stays bounded)."""

import os
import sys

from _fake import run


def crash(request: dict) -> None:
    if request["scenario"]["id"] == "bad-noisy":
        sys.stderr.write("noise\n" * 200_000)
    sys.stderr.write(f"fake: giving up on seq {request['seq']}\n")
    sys.stderr.flush()
    sys.stdout.write('{"seq": ')
    sys.stdout.flush()
    os._exit(7)


run(crash)
