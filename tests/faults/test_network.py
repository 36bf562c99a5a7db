"""Nothing the agent sent goes unseen: a request whose connection is reset in the middle of
its body (a killed client, a dropped link) is recorded as cut off, like one closed early, so
a run that would pass is inconclusive instead (a request was never seen whole)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import ROOT, Harness, whole_lines

AGENT = ROOT / "examples" / "fork-agent"
CUT = """
import os, socket, struct, sys, time
from urllib.parse import urlsplit
where = urlsplit(os.environ["OPENAI_BASE_URL"])
sock = socket.create_connection((where.hostname, where.port))
sock.sendall(b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 500\\r\\n\\r\\n"
             + b'{"model": "m", "messa')
time.sleep(0.3)
if sys.argv[1] == "reset":
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
sock.close()
"""


@pytest.mark.parametrize(("how", "said"), [("reset", "was reset"), ("close", "closed")])
def test_a_request_cut_off_mid_body_is_recorded_and_the_run_is_inconclusive(
    harness: Callable[..., Harness], tmp_path: Path, how: str, said: str
) -> None:
    cut = tmp_path / "cut.py"
    cut.write_text(CUT)
    record = tmp_path / "run.jsonl"
    agent = f"{sys.executable} {cut} {how} && {sys.executable} {AGENT / 'agent.py'}"
    run = harness("capture", "--dialect", "openai", "--script", str(AGENT / "script.json"),
                  "--record", str(record), "--", "sh", "-c", agent)  # fmt: skip
    assert run.wait() == 4  # without the cut request, this agent's run passes (exit 0)
    assert run.left() == []
    lines = whole_lines(record)
    first = lines[0]
    assert (first["status"], first["body"]) == (400, '{"model": "m", "messa')
    assert first["error"] == f"the connection {said} after 21 of the 500 bytes of Content-Length"
    assert all(line["status"] == 200 for line in lines[1:])
    assert "INCONCLUSIVE" in run.stdout
    assert "1 refused by the fake; first: request 1: refused with status 400" in run.stdout
    assert "Traceback" not in run.stderr
