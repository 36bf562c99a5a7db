"""Running a command against the fake provider (harness/capture/_command.py): its exit
status, or why it has none, and nothing it started left running."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.capture import FakeProvider, parse_script, run_command

PY = sys.executable
CALL = (
    "import json, os, urllib.request\n"
    "url = os.environ['OPENAI_BASE_URL'] + '/chat/completions'\n"
    "body = json.dumps({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}]})\n"
    "urllib.request.urlopen(urllib.request.Request(url, body.encode()), timeout=10).read()\n"
)


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider("openai", parse_script({"rules": []})) as fake:
        yield fake


def test_the_command_calls_the_provider_and_its_exit_status_is_returned(
    provider: FakeProvider,
) -> None:
    assert run_command([PY, "-c", CALL + "raise SystemExit(5)"], provider, 30) == 5
    assert [r.dialect for r in provider.records] == ["openai"]


def test_a_command_that_cannot_be_run_says_so() -> None:
    with FakeProvider("openai") as fake:
        ended = run_command(["/nonexistent/agent"], fake, 5)
    assert isinstance(ended, str)
    assert ended.startswith("cannot run '/nonexistent/agent':")


def test_a_timed_out_command_and_what_it_started_are_ended(
    provider: FakeProvider, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    program = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pids)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    began = time.monotonic()
    ended = run_command([PY, "-c", program], provider, 1.0, grace=0.3)
    assert time.monotonic() - began < 15
    assert ended == (
        "timed out: the command did not finish within 1 s; it and every process it started"
        " were ended (SIGTERM, then SIGKILL after 0.3 s)"
    )
    child = int(pids.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
