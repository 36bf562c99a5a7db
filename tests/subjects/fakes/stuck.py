"""Starts a helper in a session of its own (as a language server or a cache daemon would
be), then never answers a scenario: the subject a signal must end, helper and all."""

import subprocess
import sys
import time

from _fake import run

subprocess.Popen(
    ["setsid", sys.executable, "-c", "import time; time.sleep(600)"],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)


def stuck(request: dict) -> None:
    time.sleep(3600)


run(stuck, every=True)
