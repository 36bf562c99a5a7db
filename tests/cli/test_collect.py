"""The collections of ``check`` and ``check-log`` paced (harness/cli/_collect.py): raised for
the command, restored after it, and what was frozen handed back unless the process ends with
the command."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from harness.cli import _collect
from harness.cli._collect import YOUNG_THRESHOLD, paced_collections


@pytest.fixture(autouse=True)
def _restored() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()
    _collect._ending[0] = False


def test_the_threshold_is_raised_for_the_command_and_restored() -> None:
    gc.set_threshold(700, 11, 12)
    with paced_collections() as started:
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 11, 12)
        started()
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (700, 11, 12)
    assert gc.get_freeze_count() == 0


def _raise_in_a_paced_command() -> None:
    with paced_collections() as started:
        started()
        raise RuntimeError


def test_restored_when_the_command_raises() -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError):
        _raise_in_a_paced_command()
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_what_others_froze_stays_frozen() -> None:
    gc.freeze()
    before = gc.get_freeze_count()
    with paced_collections() as started:
        started()
    assert gc.get_freeze_count() >= before > 0


def test_a_process_that_ends_with_the_command_keeps_it_frozen() -> None:
    _collect.ends_process()
    with paced_collections() as started:
        started()
    assert gc.get_freeze_count() > 0


def test_never_started_freezes_nothing() -> None:
    with paced_collections():
        pass
    assert gc.get_freeze_count() == 0


def test_the_check_command_runs_paced() -> None:
    """``check`` through the console entry point: its collections are paced while it runs."""
    code = (
        "import gc, sys\n"
        "from harness.cli import _check, main\n"
        "seen = []\n"
        "import harness.check._run as r\n"
        "real = r.run_check\n"
        "def spy(*a, **k):\n"
        "    seen.append((gc.get_threshold()[0], gc.get_freeze_count() > 0))\n"
        "    return real(*a, **k)\n"
        "import harness.check\n"
        "harness.check.run_check = spy\n"
        "sys.argv = ['prefix-harness', 'check', '--examples', '1', '--no-progress']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    print(e.code, seen)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == f"0 [({YOUNG_THRESHOLD}, True)]"


def test_check_log_runs_paced(tmp_path: Path) -> None:
    """``check-log`` too: its collections are paced while it checks the log's requests."""
    log = tmp_path / "log.jsonl"
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    log.write_text(orjson.dumps({"body": body}).decode() + "\n", encoding="utf-8")
    code = (
        "import gc, sys\n"
        "import harness.capture\n"
        "from harness.cli import main\n"
        "seen = []\n"
        "real = harness.capture.check_requests\n"
        "def spy(*a, **k):\n"
        "    seen.append((gc.get_threshold()[0], gc.get_freeze_count() > 0))\n"
        "    return real(*a, **k)\n"
        "harness.capture.check_requests = spy\n"
        f"sys.argv = ['prefix-harness', 'check-log', '--dialect', 'openai', {str(log)!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    print(seen)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == f"[({YOUNG_THRESHOLD}, True)]", done.stderr
