"""Closes its stdout on a "bad" scenario and runs on (an exit would be a crash with a code)."""

import os
import sys
import time

from _fake import run


def close(request: dict) -> None:
    sys.stdout.flush()
    os.close(1)
    time.sleep(3600)


run(close)
