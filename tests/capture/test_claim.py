"""A record file owned by one run (harness/capture/_claim.py): FILE.partial locked, a second
claimant refused naming the process that holds it, taken over once that process is gone,
renamed into place. Real processes hold the locks."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness.capture._claim import Claim, ClaimError

HOLDER = """
import sys
from harness.capture._claim import Claim
claim = Claim(sys.argv[1])
print("held", flush=True)
sys.stdin.read()
"""


def _holder(path: Path) -> subprocess.Popen[str]:
    """Another process that claims ``path`` and holds it until its stdin closes."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stdout.readline() == "held\n"
    return process


def test_a_file_held_by_another_process_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "capture.jsonl"
    holder = _holder(path)
    try:
        with pytest.raises(ClaimError) as refused:
            Claim(path)
        assert str(refused.value) == (
            f"the record file {path} is being written by another run (pid {holder.pid}), as"
            f" {path}.partial: give each run its own --record"
        )
    finally:
        holder.kill()
        holder.wait()
    claim = Claim(path)  # its lock went with it: the partial file is taken over
    claim.publish()
    claim.release()
    assert path.read_bytes() == b""


def test_a_killed_holder_s_partial_file_is_emptied_and_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    holder = _holder(path)
    (tmp_path / "r.jsonl.partial").write_bytes(b'{"v":1,"seq":1,"time":"2')  # a torn line
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    claim = Claim(path)
    assert (tmp_path / "r.jsonl.partial").read_bytes() == b""
    claim.release()


def test_publish_renames_once_and_the_lock_goes_with_release(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"earlier\n")
    claim = Claim(path)
    assert path.read_bytes() == b"earlier\n"
    claim.publish()
    claim.publish()
    assert path.read_bytes() == b""
    assert not claim.partial.exists()
    second = Claim(path)  # the published file is no longer the partial one: free
    second.release()
    claim.release()
    claim.release()
