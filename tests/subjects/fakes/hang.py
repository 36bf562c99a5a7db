"""Never answers a "bad" scenario."""

import sys
import time

from _fake import run


def hang(request: dict) -> None:
    sys.stderr.write("fake: thinking very hard\n")
    sys.stderr.flush()
    time.sleep(3600)


run(hang)
