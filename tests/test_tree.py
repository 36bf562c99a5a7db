"""Ending a captured command's whole process tree: children that ignore SIGTERM and
grandchildren that leave the process group with ``setsid`` are ended with the command.
Real subprocesses: ``prefix-harness capture`` runs a shell script agent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from harness._tree import RUN_VARIABLE, ProcessTree, subreaper

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("setsid") is None,
    reason="needs Linux /proc and setsid",
)

AGENT = r"""#!/bin/sh
# a child in the group that ignores SIGTERM
sh -c 'trap "" TERM; echo $$ > "$1"; sleep 60' child "$PIDS/child" &
# a grandchild in a session of its own that traps SIGTERM
setsid sh -c 'trap "echo ignored" TERM; echo $$ > "$1"; while :; do sleep 1; done' \
    grandchild "$PIDS/setsid" &
while [ ! -s "$PIDS/child" ] || [ ! -s "$PIDS/setsid" ]; do sleep 0.05; done
exit 0
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in "ZX"


def _wait_gone(pids: list[int], seconds: float = 5) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def test_capture_ends_the_whole_tree_of_a_shell_agent(tmp_path: Path) -> None:
    agent = tmp_path / "agent.sh"
    agent.write_text(AGENT)
    agent.chmod(0o755)
    script = tmp_path / "script.json"
    script.write_bytes(orjson.dumps({"rules": []}))
    env = {**os.environ, "PIDS": str(tmp_path)}
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "harness", "capture", "--dialect", "openai", "--script",
         str(script), "--record", str(tmp_path / "r.jsonl"), "--", str(agent)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr  # it never called the provider
    assert "Traceback" not in done.stderr
    assert time.monotonic() - began < 20
    pids = [int((tmp_path / name).read_text()) for name in ("child", "setsid")]
    assert _wait_gone(pids) == []


def test_a_tree_is_found_by_group_token_and_orphans(tmp_path: Path) -> None:
    token = "t0k3n"
    env = {**os.environ, RUN_VARIABLE: token, "PIDS": str(tmp_path)}
    with subreaper() as on:
        assert on
        root = subprocess.Popen(["/bin/sh", "-c", AGENT], env=env, start_new_session=True)
        tree = ProcessTree(root.pid, token)
        assert root.wait(timeout=10) == 0
        pids = [int((tmp_path / name).read_text()) for name in ("child", "setsid")]
        assert set(pids) <= (tree.members() or set())  # re-parented to us, found anyway
        began = time.monotonic()
        assert tree.end(0.3) >= 2
        assert time.monotonic() - began < 5
        assert tree.members() == set()
    assert _wait_gone(pids, 1) == []
