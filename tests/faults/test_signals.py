"""Signals end a run the same way: SIGINT (Ctrl-C), SIGTERM (``kill``, ``timeout``, ``docker
stop``, a cancelled CI job) and SIGHUP (a closed terminal), once or twice. Each case asserts
the exit code (128 + the signal), one sentence, no process of the run left (the agent's
whole tree: a child ignoring SIGTERM, a ``setsid`` grandchild, an orphan; a subject in its
own session and its helpers), and a record of whole lines put in place."""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import AGENT_TREE, FAKES, Harness, one_sentence, whole_lines

GRACE = 2.0
"""What a process of the run that ignores SIGTERM gets before SIGKILL (capture's grace)."""
SIGNALS = [(signal.SIGINT, "SIGINT", 130), (signal.SIGTERM, "SIGTERM", 143),
           (signal.SIGHUP, "SIGHUP", 129)]  # fmt: skip


@pytest.mark.parametrize("second", [False, True], ids=["once", "twice"])
@pytest.mark.parametrize(("signum", "name", "code"), SIGNALS, ids=[s[1] for s in SIGNALS])
def test_a_signal_ends_a_capture_and_the_agent_s_whole_tree(
    harness: Callable[..., Harness],
    agent: Path,
    script: Path,
    tmp_path: Path,
    signum: int,
    name: str,
    code: int,
    second: bool,
) -> None:
    record = tmp_path / "run.jsonl"
    run = harness("capture", "--dialect", "openai", "--script", str(script),
                  "--record", str(record), "--", sys.executable, str(agent), "3")  # fmt: skip
    run.wait_for(run.output_has("called"))
    run.wait_for(lambda: len(run.alive()) == 1 + AGENT_TREE)  # capture and the agent's four
    run.signal(signum)
    if second:  # during the clean-up (the SIGTERM-ignoring child holds it 2 s): no abort
        time.sleep(0.3)
        run.signal(signum)
    assert run.wait() == code
    assert run.left() == []
    assert one_sentence(run.stderr) == (
        f"prefix-harness: error: interrupted by {name}: the command and every process it"
        f" started were ended; 3 requests were recorded in {record}"
    )
    assert [line["seq"] for line in whole_lines(record)] == [1, 2, 3]
    assert not Path(f"{record}.partial").exists()
    assert run.ended is not None
    if second:  # it hurried the clean-up: SIGKILL at once, not after the grace
        assert run.ended < GRACE
    else:  # the child ignoring SIGTERM had its grace before SIGKILL
        assert run.ended >= GRACE


def test_a_signal_during_the_clean_up_of_a_timed_out_capture_hurries_it(
    harness: Callable[..., Harness], agent: Path, script: Path, tmp_path: Path
) -> None:
    record = tmp_path / "run.jsonl"
    run = harness("capture", "--dialect", "openai", "--script", str(script), "--timeout", "3",
                  "--record", str(record), "--", sys.executable, str(agent))  # fmt: skip
    run.wait_for(run.output_has("called"))
    # timed out: the agent itself ends on SIGTERM, its child ignoring it has a 2 s grace
    run.wait_for(lambda: len(run.alive()) < 1 + AGENT_TREE, 30)
    run.signal(signal.SIGINT)
    began = time.monotonic()
    assert run.wait() == 130
    assert time.monotonic() - began < GRACE  # hurried: SIGKILL at once, not after the grace
    assert run.left() == []
    assert one_sentence(run.stderr) == (
        "prefix-harness: error: interrupted by SIGINT: the command and every process it started"
        f" were ended; 1 request was recorded in {record}"
    )
    assert [line["seq"] for line in whole_lines(record)] == [1]


@pytest.mark.parametrize(("signum", "name", "code"), SIGNALS, ids=[s[1] for s in SIGNALS])
def test_a_signal_ends_a_check_and_its_stuck_subject_in_a_session_of_its_own(
    harness: Callable[..., Harness], tmp_path: Path, signum: int, name: str, code: int
) -> None:
    report = tmp_path / "report.html"
    report.write_text("the last run's report\n")
    subject = f"cmd:{sys.executable} {FAKES / 'stuck.py'}"
    run = harness("check", "--subject", subject, "--no-progress", "--timeout", "600",
                  "--html", str(report))  # fmt: skip
    run.wait_for(lambda: len(run.alive()) == 3)  # check, the subject and its setsid helper
    run.signal(signum)
    assert run.wait() == code
    assert run.left() == []
    assert one_sentence(run.stderr) == f"prefix-harness: error: interrupted by {name}"
    assert report.read_text() == "the last run's report\n"  # no report: the old one stays
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_ctrl_c_ends_check_jobs_and_every_worker_quietly(
    harness: Callable[..., Harness],
) -> None:
    subject = f"cmd:{sys.executable} {FAKES / 'stuck.py'}"
    run = harness("check", "--jobs", "2", "--subject", subject, "--no-progress",
                  "--timeout", "600")  # fmt: skip
    # check, two workers, three subjects (check's own and one per worker), each with a helper
    run.wait_for(lambda: len(run.alive()) == 9, 60)
    run.signal(signal.SIGINT, group=True)  # what a terminal's Ctrl-C does
    assert run.wait() == 130
    assert run.left() == []
    assert one_sentence(run.stderr) == "prefix-harness: error: interrupted by SIGINT"
    assert "KeyboardInterrupt" not in run.stderr


def test_sigterm_to_check_jobs_alone_ends_its_workers_too(
    harness: Callable[..., Harness],
) -> None:
    subject = f"cmd:{sys.executable} {FAKES / 'stuck.py'}"
    run = harness("check", "--jobs", "2", "--subject", subject, "--no-progress",
                  "--timeout", "600")  # fmt: skip
    run.wait_for(lambda: len(run.alive()) == 9, 60)
    run.signal(signal.SIGTERM)  # to the main process only, as timeout(1) does
    assert run.wait() == 143
    assert run.left() == []
    assert one_sentence(run.stderr) == "prefix-harness: error: interrupted by SIGTERM"
