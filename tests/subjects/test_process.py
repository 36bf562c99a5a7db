"""One subject process: lines both ways within deadlines, bounded stderr, always reaped."""

from __future__ import annotations

import contextlib
import errno
import gc
import mmap
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from harness._interrupt import Interrupted, handled
from harness.subjects import SubjectStartError, _process
from harness.subjects._process import (
    _CHUNK,
    LineTooLong,
    OutputTooLarge,
    ProcessExited,
    ProcessTimeout,
    SubjectProcess,
    _Lines,
)

ECHO = r"""
import os, signal, subprocess, sys, time
if "noisy" in sys.argv:
    sys.stderr.write("e" * 1_000_000); sys.stderr.flush()
if "spew" in sys.argv:
    sys.stdout.write("s" * 3_000_000); sys.stdout.flush()
if "stubborn" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
for line in sys.stdin:
    cmd = line.strip()
    if cmd == "crash":
        sys.stderr.write("bye\n"); sys.stderr.flush(); os._exit(5)
    if cmd == "sleep":
        time.sleep(60)
    if cmd == "nap":
        time.sleep(0.5)
    if cmd == "close":
        os.close(1); time.sleep(60)
    if cmd.startswith("noise"):
        sys.stderr.write("line\n" * int(cmd[5:])); sys.stderr.flush()
    if cmd == "blank":
        sys.stdout.write("\n  \n")
    if cmd == "pair":
        sys.stdout.write("one\ntwo\n"); sys.stdout.flush(); continue
    if cmd == "spawn":
        cmd = str(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]).pid)
    if cmd == "escape":  # a helper in a session of its own, left behind as an orphan
        middle = (
            "import subprocess as s, sys; n = s.DEVNULL; print(s.Popen(['setsid', sys.executable,"
            " '-c', 'import time; time.sleep(60)'], stdin=n, stdout=n, stderr=n).pid)"
        )
        out = subprocess.run([sys.executable, "-c", middle], capture_output=True, text=True)
        cmd = out.stdout.strip()
    if cmd.startswith("big"):
        cmd = "b" * int(cmd[3:])
    sys.stdout.write(cmd + "\n"); sys.stdout.flush()
if "stubborn" in sys.argv:
    time.sleep(60)
"""


def start(
    *flags: str, max_line_bytes: int = 1 << 26, stderr_limit: int = 1 << 16
) -> SubjectProcess:
    return SubjectProcess(
        [sys.executable, "-c", ECHO, *flags],
        max_line_bytes=max_line_bytes,
        stderr_limit=stderr_limit,
    )


def reaped(pid: int) -> bool:
    """Whether our child ``pid`` is gone and waited for (no zombie left)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def dead(pid: int, within: float = 5.0) -> bool:
    """Whether a process that is not our child has ended (a zombie counts as ended)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_line_out_and_a_line_back_skipping_blank_lines() -> None:
    process = start()
    assert process.exchange(b"hello\n", 5) == b"hello"
    assert process.exchange(b"blank\n", 5) == b"blank"
    assert process.stop(b"", 2) == 0
    assert reaped(process.pid)


def test_big_lines_both_ways_while_the_child_floods_stderr() -> None:
    process = start("noisy")
    big = 4 * 1024 * 1024
    assert process.exchange(b"x" * big + b"\n", 20) == b"x" * big
    assert process.exchange(f"big{big}\n".encode(), 20) == b"b" * big
    assert len(process.stderr_tail()) <= 4000
    process.stop(b"", 2)


@pytest.mark.parametrize("sizes", [(3, 5, 1), (40_000, 200_000, 300_000), (600_000, 600_000, 1)])
def test_a_line_given_in_parts_is_written_as_their_concatenation(
    sizes: tuple[int, int, int],
) -> None:
    """Parts go in one writev when the pipe takes them whole; past the pipe's size or a
    chunk they are joined, and what is left is written as the child reads."""
    process = start()
    parts = (b"a" * sizes[0], b"b" * sizes[1], b"c" * sizes[2] + b"\n")
    assert process.exchange(parts, 20) == b"".join(parts)[:-1]
    assert process.exchange([b"he", b"", b"llo\n"], 5) == b"hello"
    process.kill()


def test_a_line_is_taken_and_what_follows_it_in_the_same_read_is_kept() -> None:
    process = start()
    assert process.exchange(b"pair\n", 5) == b"one"
    assert process.unread() == b"two"
    assert process.exchange(b"hello\n", 5) == b"two"  # the next line, as read
    assert process.exchange(b"", 5) == b"hello"
    process.kill()


def test_the_room_of_a_huge_line_is_let_go_once_it_is_taken() -> None:
    process = start()
    big = 6 * 1024 * 1024
    assert process.exchange(f"big{big}\n".encode(), 20) == b"b" * big
    assert process.exchange(b"small\n", 5) == b"small"
    assert len(process._out._buf) <= 2 * 1024 * 1024  # not the 6 MiB line's
    process.kill()


def test_lines_split_across_reads_grow_the_buffer_and_keep_what_follows() -> None:
    """The stdout buffer as a unit: lines split across reads, a line longer than the
    buffer (it doubles, what it held kept), the bytes after a line moved to its front."""
    lines = _Lines()
    big = bytes(range(256)).replace(b"\n", b"") * (5 * _CHUNK // 255)
    r, w = os.pipe()
    try:
        os.set_blocking(r, False)
        feed = b"one\ntw" + b"o\n\n" + big + b"\nlast"
        taken: list[bytes | None] = []
        for at in range(0, len(feed), 50_000):
            os.write(w, feed[at : at + 50_000])
            with contextlib.suppress(BlockingIOError):
                while lines.read(r, 1 << 30):
                    pass
            taken += iter(lambda: lines.take(1 << 30), None)
        assert taken == [b"one", b"two", b"", big]
        assert {type(line) for line in taken} == {bytes}
        assert lines.pending() == b"last"
        assert len(lines) == 4
        with pytest.raises(LineTooLong):
            lines.take(3)
        os.write(w, b"\n")
        assert lines.read(r, 1 << 30) == 1
        assert lines.take(10) == b"last"
        assert lines.pending() == b""
        assert len(lines._buf) <= 2 * _CHUNK  # not the 5 MiB line's room
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_process_does_not_share_the_stdout_buffer() -> None:
    lines = _Lines()
    r, w = os.pipe()
    os.write(w, b"abc")
    assert lines.read(r, 100) == 3
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        lines._buf[:3] = b"xyz"
        os._exit(0)
    os.waitpid(child, 0)
    assert lines.pending() == b"abc"
    os.close(r)
    os.close(w)


@pytest.mark.skipif(sys.platform != "linux", reason="pipe sizes are set on Linux only")
def test_the_pipes_take_a_request_and_its_reply_in_one_write() -> None:
    import fcntl

    process = start()
    for pipe in (process._stdin, process._stdout):
        assert fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ) == 256 * 1024
    process.kill()


def test_waiting_for_a_reply_does_not_spin() -> None:
    process = start()
    cpu = time.process_time()
    assert process.exchange(b"nap\n", 5) == b"nap"
    assert time.process_time() - cpu < 0.1
    process.kill()


def test_no_reply_in_time_is_a_timeout_and_kill_reaps() -> None:
    process = start()
    with pytest.raises(ProcessTimeout):
        process.exchange(b"sleep\n", 0.3)
    process.kill()
    assert reaped(process.pid)


def test_an_exit_gives_the_exit_code_and_the_last_words() -> None:
    process = start()
    with pytest.raises(ProcessExited) as exited:
        process.exchange(b"crash\n", 5)
    assert exited.value.exit_code == 5
    assert not exited.value.partial
    assert process.stderr_tail() == "bye"
    process.kill()
    assert reaped(process.pid)


def test_writing_to_an_exited_child_is_an_exit() -> None:
    process = start()
    with pytest.raises(ProcessExited):
        process.exchange(b"crash\n", 5)
    with pytest.raises(ProcessExited):
        process.exchange(b"x" * 1_000_000 + b"\n", 5)
    process.kill()


def test_a_closed_stdout_of_a_running_child_has_no_exit_code() -> None:
    process = start()
    began = time.monotonic()
    with pytest.raises(ProcessExited) as exited:
        process.exchange(b"close\n", 30)
    assert exited.value.exit_code is None
    assert time.monotonic() - began < 10  # taken at its word, not waited for
    process.kill()
    assert reaped(process.pid)


def test_output_that_cannot_be_held_is_output_too_large(monkeypatch: pytest.MonkeyPatch) -> None:
    """A map refused as under a memory limit (mmap: ENOMEM), as a flood of stdout without a
    newline meets it: no OSError escapes, the child is ended as for any failure."""
    real = _process._anonymous_map

    def refused(size: int) -> mmap.mmap:
        if size > _CHUNK:
            raise OSError(errno.ENOMEM, "Cannot allocate memory")
        return real(size)

    monkeypatch.setattr(_process, "_anonymous_map", refused)
    process = start()
    with pytest.raises(OutputTooLarge) as too_large:
        process.exchange(b"big3000000\n", 10)
    assert too_large.value.held > 0  # what it had read when the buffer could not grow
    process.kill()
    assert reaped(process.pid)


def test_a_line_over_the_limit_is_refused() -> None:
    process = start(max_line_bytes=1024)
    assert process.exchange(b"big1024\n", 5) == b"b" * 1024
    with pytest.raises(LineTooLong) as too_long:
        process.exchange(b"big5000\n", 5)
    assert too_long.value.limit == 1024
    process.kill()


def test_output_over_the_limit_while_the_request_is_written_is_refused() -> None:
    process = start("spew", max_line_bytes=1024 * 1024)
    with pytest.raises(LineTooLong):
        process.exchange(b"x" * 4 * 1024 * 1024 + b"\n", 10)
    assert len(process._out) < 2 * 1024 * 1024  # stopped reading at the limit
    process.kill()


def test_stderr_is_kept_bounded() -> None:
    process = start(stderr_limit=1000)
    process.exchange(b"noise100000\n", 5)
    assert len(process._err) <= 1000
    assert process.stderr_tail().splitlines() == ["line"] * 20
    process.kill()


def test_stop_kills_a_child_that_ignores_eof_and_sigterm() -> None:
    process = start("stubborn")
    process.exchange(b"hi\n", 5)
    started = time.monotonic()
    assert process.stop(b"", 0.2) == -9
    assert time.monotonic() - started < 5
    assert reaped(process.pid)


def test_kill_ends_the_whole_process_group() -> None:
    process = start()
    grandchild = int(process.exchange(b"spawn\n", 5))
    process.kill()
    assert reaped(process.pid)
    assert dead(grandchild)


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc and setsid")
@pytest.mark.parametrize("end", ["kill", "stop"])
def test_a_setsid_orphan_of_the_child_is_ended_with_it(end: str) -> None:
    """It left the group and its parent: it carries the child's token, and is found by it."""
    process = start()
    orphan = int(process.exchange(b"escape\n", 10))
    assert not dead(orphan, within=0.2)
    if end == "kill":
        process.kill()
    else:
        process.stop(b"", 2)
    assert reaped(process.pid)
    assert dead(orphan)


def test_a_forgotten_process_is_ended_when_collected() -> None:
    process = start()
    pid = process.pid
    del process
    gc.collect()
    assert reaped(pid)


def test_a_missing_program_cannot_start() -> None:
    with pytest.raises(SubjectStartError, match="cannot run '/nonexistent/subject'"):
        SubjectProcess(["/nonexistent/subject"], max_line_bytes=1024, stderr_limit=10)


def test_a_signal_that_does_not_land_in_the_main_thread_still_ends_an_exchange() -> None:
    """A signal caught outside the main thread's wait (here: by another thread; in a run,
    one that lands as the main thread enters ``select``, after Python last looked for
    signals) does not cut the wait short by itself: the run's wakeup pipe does, and the
    handler raises at once instead of after the subject's whole timeout."""
    proc = start()
    parked = threading.Event()
    other = threading.Thread(target=parked.wait, daemon=True)  # a thread the signal lands in
    other.start()
    assert other.ident is not None
    timer = threading.Timer(0.3, signal.pthread_kill, (other.ident, signal.SIGHUP))
    began = time.monotonic()
    timer.start()
    try:
        with handled(), pytest.raises(Interrupted):
            proc.exchange(b"sleep\n", 30)
    finally:
        timer.cancel()
        parked.set()
        proc.kill()
    assert time.monotonic() - began < 10
