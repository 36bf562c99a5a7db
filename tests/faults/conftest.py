"""What the fault tests share: the harness run as a real process of its own (a session of its
own, so that a terminal's signals can be played to its whole group), its process table
found by a marker variable, and what every case asserts: the exit code, one sentence on
stderr and no traceback, no process of the run left, files of whole lines."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

from .procs import MARKER, left_behind, marked, new_marker

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "subjects" / "fakes"
WAIT = 120.0
"""No case waits longer than this for the harness to end."""

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the process table is read from Linux /proc"
)


class Harness:
    """``prefix-harness ARGV`` started in a session of its own, its environment carrying a
    marker; stdout and stderr go to files."""

    def __init__(
        self,
        argv: list[str],
        where: Path,
        *,
        limits: dict[int, int] | None = None,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.marker = new_marker()
        self.out = where / f"out-{self.marker[:8]}.txt"
        self.err = where / f"err-{self.marker[:8]}.txt"
        environment = {**os.environ, **(env or {}), MARKER: self.marker}
        environment["PYTHONPATH"] = str(ROOT)
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness", *argv],
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env=environment,
                cwd=cwd or ROOT,
                start_new_session=True,
                preexec_fn=None if not limits else _limited(limits),
            )
        self.ended: float | None = None

    def wait_for(self, what: Callable[[], bool], seconds: float = 60.0) -> None:
        """Wait until ``what()`` holds (the run reached a point), failing after ``seconds``."""
        deadline = time.monotonic() + seconds
        while not what():
            assert self.process.poll() is None, f"ended early: {self.stderr}"
            assert time.monotonic() < deadline, f"never happened; stderr: {self.stderr}"
            time.sleep(0.05)

    def output_has(self, text: str) -> Callable[[], bool]:
        return lambda: text in self.out.read_text(errors="replace")

    def signal(self, signum: int, *, group: bool = False) -> None:
        """Send ``signum`` to the harness (``group``: to its whole process group, as a
        terminal's Ctrl-C reaches every process of the foreground job)."""
        if group:
            os.killpg(self.process.pid, signum)
        else:
            self.process.send_signal(signum)

    def wait(self) -> int:
        """The exit code, the harness having ended within ``WAIT`` seconds."""
        began = time.monotonic()
        code = self.process.wait(timeout=WAIT)
        self.ended = time.monotonic() - began
        return code

    @property
    def stdout(self) -> str:
        return self.out.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def left(self) -> list[int]:
        """The processes of the run still alive (each killed, so that none leaks)."""
        return left_behind(self.marker)

    def alive(self) -> list[int]:
        return marked(self.marker)


def _limited(limits: dict[int, int]) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past a size limit fails instead
        for which, value in limits.items():
            resource.setrlimit(which, (value, value))

    return apply


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Callable[..., Harness]]:
    """Start harness processes; afterwards each has ended and left no process behind."""
    started: list[Harness] = []

    def start(*argv: str, **options: object) -> Harness:
        run = Harness(list(argv), tmp_path, **options)  # type: ignore[arg-type]
        started.append(run)
        return run

    yield start
    for run in started:
        if run.process.poll() is None:
            os.killpg(run.process.pid, signal.SIGKILL)
            run.process.wait()
        run.left()


def one_sentence(stderr: str, starts: str = "prefix-harness: error: ") -> str:
    """The one line of ``stderr`` the harness wrote, asserted to be all there is of ours and
    no traceback."""
    assert "Traceback" not in stderr, stderr
    ours = [line for line in stderr.splitlines() if line.startswith("prefix-harness:")]
    assert len(ours) == 1, stderr
    assert ours[0].startswith(starts), stderr
    return ours[0]


def whole_lines(path: Path) -> list[dict[str, object]]:
    """The JSON objects of a JSON-lines file, asserted to be whole lines, every one."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), f"{path} ends in a cut-off line"
    return [orjson.loads(line) for line in data.splitlines()]


AGENT = """
import json, os, subprocess, sys, time, urllib.request
py = sys.executable
sleep = "import time; time.sleep(600)"
# a child that ignores SIGTERM, a grandchild in a session of its own, an orphan
subprocess.Popen([py, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
                  " time.sleep(600)"])
subprocess.Popen(["setsid", py, "-c", sleep])
orphan = f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {sleep!r}])"
subprocess.Popen([py, "-c", orphan]).wait()
url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
count = int(sys.argv[1]) if len(sys.argv) > 1 else 1
pad = sys.argv[2] if len(sys.argv) > 2 else ""
for i in range(count):
    body = {"model": "m", "messages": [{"role": "user", "content": f"hi {i} {pad}"}]}
    request = urllib.request.Request(url, json.dumps(body).encode())
    try:
        urllib.request.urlopen(request, timeout=30).read()
    except Exception as e:
        print("refused:", e, flush=True)
        break
print("called", flush=True)
time.sleep(600)
"""
"""An agent whose tree is hard to end (see ``AGENT_TREE``): it calls the provider
``argv[1]`` times (bodies padded with ``argv[2]``), says ``called``, then waits forever."""

AGENT_TREE = 4
"""The processes of ``AGENT`` once it has called: itself, the child that ignores SIGTERM,
the setsid grandchild and the orphan."""


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    path = tmp_path / "agent.py"
    path.write_text(AGENT)
    return path


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_bytes(orjson.dumps({"rules": [], "default": {"text": "ok"}}))
    return path
