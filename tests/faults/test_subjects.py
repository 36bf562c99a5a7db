"""A subject that closes its stdout and runs on is a crash at once, counted like a hang: a
check of one stops after three in a row instead of paying a restart and a wait per scenario
run. The case asserts the exit code, the failures, and no process of the run left."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from .conftest import FAKES, Harness

CLOSER = """
import os, sys, time
sys.path.insert(0, {fakes!r})
import _fake
_fake.IMPLEMENTATION.update(dialects=["anthropic", "gemini", "openai", "openai-responses"],
                            lifecycles=["one-shot", "continuable", "spawn"])

def close(request):
    sys.stdout.flush()
    os.close(1)
    time.sleep(3600)

_fake.run(close, every=True)
"""


def test_a_default_check_of_a_subject_that_closes_its_stdout_stops_after_three(
    harness: Callable[..., Harness], tmp_path: Path
) -> None:
    closer = tmp_path / "closer.py"
    closer.write_text(CLOSER.format(fakes=str(FAKES)))
    run = harness("check", "--subject", f"cmd:{sys.executable} {closer}", "--no-progress")
    assert run.wait() == 3
    assert run.left() == []
    assert "3 scenario runs (0 of them generated)" in run.stdout  # of some 200
    assert "closed its stdout during seq 1 but kept running" in run.stdout
    assert "the subject hung or closed its stdout on 3 scenarios in a row: the run is stopped" in (
        run.stdout
    )
    assert "verdict: subject failed (3 crash/hang/protocol errors)" in run.stdout
    assert "Traceback" not in run.stderr
