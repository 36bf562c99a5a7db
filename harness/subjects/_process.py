"""One subject process: a line out, a line back, within a deadline; its stderr kept, bounded.

Single-threaded: a selector multiplexes the child's stdin, stdout and stderr, so a large
request cannot deadlock against a chatty stderr, and nothing is left running in the
background. The pipes to and from the child are widened (Linux) so that a scenario's request
and its reply each pass in one write; stdout is read straight into one buffer that is kept,
and each line is copied out of it once (a fresh megabyte per read costs page faults).

The child leads its own process group (POSIX) and carries a token of its own in its
environment (``harness._tree``), so ending it also ends what it started: its group, and
whatever carries the token, ``setsid`` descendants and orphans included. Every end reaps
it, so no zombie is left, and a finalizer does the same for a process nobody closed. An
end is not cut short by a signal (``harness._interrupt``): one arriving meanwhile makes it
hurry (SIGKILL at once) and is raised when it is done.

A child that closes its stdout is taken at its word at once: if it has not exited a moment
later it is reported as running with its stdout closed (and ended), instead of being waited
for; output it cannot have held in memory (a line without end, under a memory limit) is
``OutputTooLarge``, never a traceback.
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
import secrets
import selectors
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Sequence
from typing import IO, Final

from .._interrupt import deferred, drain, wakeup_fd
from .._tree import RUN_VARIABLE, ProcessTree
from ._failure import SubjectStartError

if sys.platform == "linux":
    import fcntl

__all__ = ["LineTooLong", "OutputTooLarge", "ProcessExited", "ProcessTimeout", "SubjectProcess"]

_CHUNK: Final = 1 << 20
"""The most one read or write moves."""
_PIPE: Final = 256 << 10
"""The pipe size asked for (Linux; 64 KiB by default): a long scenario's request and its reply
each pass in one write. Not more: a user's pipes share a budget (``pipe-user-pages-soft``,
64 MiB), and ``--jobs`` runs a subject per CPU."""
_KEEP: Final = 4 << 20
"""A stdout buffer grown past this by a huge line is let go once the line is taken."""
_POSIX: Final = os.name == "posix"
_DRAIN_SECONDS: Final = 0.5
"""How long stderr is read after the child exited, for its last words."""
_EXITING_SECONDS: Final = 0.2
"""How long a child that closed its stdout has to exit before it is taken as running on
with its stdout closed (and ended): a process that exits closes its stdout a moment before."""
_TERM_SECONDS: Final = 1.0
"""How long a terminated child gets before it is killed."""
_POLL_SECONDS: Final = 0.02
"""How often a child that closed its stdout is looked at while it may be exiting."""


class ProcessTimeout(Exception):
    """No complete line arrived before the deadline."""


class ProcessExited(Exception):
    """The child closed its stdout (it exited, or is exiting) before a complete line."""

    def __init__(self, exit_code: int | None, partial: bool) -> None:
        super().__init__(exit_code)
        self.exit_code = exit_code
        self.partial = partial


class OutputTooLarge(Exception):
    """The child's output could not be held in memory (``held`` bytes of a line so far)."""

    def __init__(self, held: int) -> None:
        super().__init__(held)
        self.held = held


class LineTooLong(Exception):
    """A line grew past the limit without its newline."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


class SubjectProcess:
    """A started child speaking lines; ``exchange`` one, then ``stop`` or ``kill`` it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        max_line_bytes: int,
        stderr_limit: int,
    ) -> None:
        token = secrets.token_hex(8)
        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                bufsize=0,
                start_new_session=_POSIX,
                env={**os.environ, RUN_VARIABLE: token},
            )
        except OSError as e:
            raise SubjectStartError(f"cannot run {argv[0]!r}: {e.strerror or e}") from None
        self._proc = proc
        self._tree = ProcessTree(proc.pid, token, adopt=False) if _POSIX else None
        self._stdin, self._stdout, self._stderr = _pipes(proc)
        for pipe in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(pipe.fileno(), False)
        for pipe in (self._stdin, self._stdout):
            _widen(pipe)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ, "out")
        self._selector.register(self._stderr, selectors.EVENT_READ, "err")
        self._max_line = max_line_bytes
        self._stderr_limit = stderr_limit
        self._out = _Lines()
        self._err = bytearray()
        self._stdout_open = True
        self._finalizer = weakref.finalize(self, _end, proc, self._selector, 0.0, self._tree)

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def running(self) -> bool:
        return self._proc.poll() is None

    def exchange(self, line: bytes | Sequence[bytes], timeout: float) -> bytes:
        """Write ``line`` (or the parts it is made of, in order), then return the next
        non-blank line from stdout (no newline).

        Raises ``ProcessTimeout``, ``ProcessExited``, ``LineTooLong`` or ``OutputTooLarge``.
        """
        deadline = time.monotonic() + timeout
        pending = self._write_first(line)  # what the pipe takes now, most often all
        if pending:
            self._selector.register(self._stdin, selectors.EVENT_WRITE, "in")
        wake = wakeup_fd()  # a signal ends the wait even as it begins (harness._interrupt)
        if wake is not None:
            self._selector.register(wake, selectors.EVENT_READ, "signal")
        try:
            while True:
                if not pending:
                    reply = self._take_line()
                    if reply is not None:
                        return reply
                elif len(self._out) > self._max_line:  # output while it should be reading
                    raise LineTooLong(self._max_line)
                if not self._stdout_open:
                    raise ProcessExited(self._exit_code(), partial=bool(self._out))
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ProcessTimeout
                for key, _ in self._selector.select(remaining):
                    if key.data == "signal":  # its handler raised, or it came during clean-up
                        drain(key.fd)
                    elif key.data != "in":
                        self._read(key.data)
                    else:
                        pending = self._write(pending)
                        if not pending:  # written: from now on wait for stdout only
                            self._unregister(self._stdin)
        except MemoryError:  # a reply copied out of the buffer, too large for what is left
            raise OutputTooLarge(len(self._out)) from None
        finally:
            if pending:
                self._unregister(self._stdin)
            if wake is not None:
                with contextlib.suppress(KeyError, ValueError):
                    self._selector.unregister(wake)

    def _unregister(self, pipe: IO[bytes]) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(pipe)

    def _write_first(self, line: bytes | Sequence[bytes]) -> memoryview:
        """Write what the pipe takes of ``line`` now; what is left. Parts go in one
        ``writev`` (up to a chunk in all), so that they are joined only if the pipe does not
        take them whole."""
        if isinstance(line, bytes):
            return self._write(memoryview(line))
        parts = tuple(line)
        size = sum(map(len, parts))
        if size > _CHUNK:
            return self._write(memoryview(b"".join(parts)))
        try:
            written = os.writev(self._stdin.fileno(), parts)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, ConnectionResetError):
            raise ProcessExited(self._exit_code(), partial=bool(self._out)) from None
        if written == size:
            return memoryview(b"")
        return memoryview(b"".join(parts))[written:]

    def _write(self, pending: memoryview) -> memoryview:
        try:
            return pending[os.write(self._stdin.fileno(), pending[:_CHUNK]) :]
        except BlockingIOError:
            return pending
        except (BrokenPipeError, ConnectionResetError):
            raise ProcessExited(self._exit_code(), partial=bool(self._out)) from None

    def _read(self, which: str) -> None:
        pipe = self._stdout if which == "out" else self._stderr
        try:
            if which == "out":
                room = self._max_line + 1 - len(self._out)  # past the limit, it is too long
                try:
                    ended = self._out.read(pipe.fileno(), room) == 0
                except BlockingIOError:
                    raise
                except (MemoryError, OSError) as e:  # the buffer could not grow (a map refused)
                    if isinstance(e, OSError) and e.errno != errno.ENOMEM:
                        raise
                    raise OutputTooLarge(len(self._out)) from None
            else:
                chunk = os.read(pipe.fileno(), _CHUNK)
                ended = not chunk
                self._err += chunk
                if len(self._err) > self._stderr_limit:
                    del self._err[: len(self._err) - self._stderr_limit]
        except BlockingIOError:
            return
        if ended:
            self._unregister(pipe)
            self._stdout_open = self._stdout_open and which != "out"

    def _take_line(self) -> bytes | None:
        """The first complete non-blank line of the stdout buffer, removed from it."""
        while True:
            line = self._out.take(self._max_line)
            if line is None or (line and not line.isspace()):
                return line

    def _exit_code(self) -> int | None:
        """After stdout closed: the exit code, with the rest of stderr read (its last words,
        for up to ``_DRAIN_SECONDS``); None when the child has not exited
        ``_EXITING_SECONDS`` later: it runs on with its stdout closed, and is not waited for."""
        self._unregister(self._stdin)
        began = time.monotonic()
        exiting, deadline = began + _EXITING_SECONDS, began + _DRAIN_SECONDS
        code = self._proc.poll()
        while any(k.data == "err" for k in self._selector.get_map().values()):
            now = time.monotonic()
            if (code is None and now >= exiting) or now >= deadline:
                break
            wait = deadline - now if code is not None else min(exiting - now, _POLL_SECONDS)
            for key, _ in self._selector.select(wait):
                self._read(key.data)
            if code is None:
                code = self._proc.poll()
        if code is not None:
            return code
        try:
            return self._proc.wait(timeout=max(0.0, exiting - time.monotonic()))
        except subprocess.TimeoutExpired:
            return None

    def stderr_tail(self, max_lines: int = 20, max_chars: int = 4000) -> str:
        """The last lines the child wrote to stderr, decoded leniently."""
        text = self._err.decode("utf-8", errors="replace")[-max_chars:]
        return "\n".join(text.splitlines()[-max_lines:])

    def unrequested(self) -> bytes | None:
        """What the child has written to stdout that no request asked for (a second reply,
        a log line), read without waiting; None when there is nothing but blank lines."""
        if self._finalizer.alive and self._stdout_open:
            for key, _ in self._selector.select(0):
                if key.data != "in":
                    self._read(key.data)
        return self.unread()

    def unread(self) -> bytes | None:
        """The stdout read but not taken as a reply (blank lines aside), or None."""
        return self._out.pending().strip() or None

    def stop(self, farewell: bytes, grace: float) -> int | None:
        """Write ``farewell`` and close stdin, give the child ``grace`` seconds to exit, then
        terminate and kill it. Returns its exit code; the child is reaped.

        Until the child closes its stdout (or the grace runs out) its output is still read:
        what it wrote after its last reply is ``unread()`` afterwards."""
        deadline = time.monotonic() + grace
        if self._finalizer.alive:
            try:
                if self.running:
                    with contextlib.suppress(OSError, ValueError):  # it stopped reading: EOF
                        os.write(self._stdin.fileno(), farewell)
                self._unregister(self._stdin)
                with contextlib.suppress(OSError):
                    self._stdin.close()
                while self._stdout_open and len(self._out) <= self._max_line:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    for key, _ in self._selector.select(remaining):
                        self._read(key.data)
            except BaseException:  # a signal, or output too large: ended now, not waited for
                self.kill()
                raise
        self._finalizer.detach()
        return _end(self._proc, self._selector, max(0.0, deadline - time.monotonic()), self._tree)

    def kill(self) -> int | None:
        """End the child and everything it started now; it is reaped."""
        self._finalizer.detach()
        return _end(self._proc, self._selector, 0.0, self._tree)


class _Lines:
    """The child's stdout as read and not yet taken: one buffer, kept, that reads fill in
    place (``os.readv``); ``take`` copies a complete line out of it once.

    The buffer is an anonymous map, so page-aligned: on some CPUs the kernel copies a pipe's
    pages into a buffer aligned to 32 bytes several times faster than into one that is not,
    as a bytearray's bytes may not be (a 240 KB reply read in 0.04 ms, not 0.15)."""

    def __init__(self) -> None:
        self._buf = _anonymous_map(_CHUNK)
        self._size = 0
        """How many bytes of the buffer hold output not taken."""
        self._scanned = 0
        """How far the buffer is known to hold no newline."""

    def __len__(self) -> int:
        return self._size

    def read(self, fd: int, room: int) -> int:
        """Read what ``fd`` has, up to a chunk and to ``room`` bytes (at least one); 0 at its
        end. ``BlockingIOError`` when it has nothing now. The buffer doubles as needed."""
        want = min(_CHUNK, max(1, room))
        size = len(self._buf)
        while size < self._size + want:
            size *= 2
        if size > len(self._buf):
            self._resize(size)
        with memoryview(self._buf) as view:
            count = os.readv(fd, [view[self._size : self._size + want]])
        self._size += count
        return count

    def take(self, limit: int) -> bytes | None:
        """The first complete line (without its newline), removed; None when there is none
        yet. ``LineTooLong`` when it is longer than ``limit``, complete or not."""
        end = self._buf.find(b"\n", self._scanned, self._size)
        if end < 0:
            self._scanned = self._size
            if self._size > limit:
                raise LineTooLong(limit)
            return None
        if end > limit:
            raise LineTooLong(limit)
        rest = self._size - end - 1
        line = self._buf[:end]
        if rest:
            self._buf.move(0, end + 1, rest)
        self._size, self._scanned = rest, 0
        if len(self._buf) > _KEEP and rest < _CHUNK:  # a huge line is gone: so is its room
            self._resize(_CHUNK)
        return line

    def _resize(self, size: int) -> None:
        """Move what is held to a new map of ``size`` bytes (at least what is held)."""
        old, self._buf = self._buf, _anonymous_map(size)
        with memoryview(old) as held:  # no copy of a huge line in between
            self._buf[: self._size] = held[: self._size]
        old.close()

    def pending(self) -> bytes:
        """What was read and not taken."""
        return self._buf[: self._size]


def _anonymous_map(size: int) -> mmap.mmap:
    """``size`` zero bytes in a map of their own, private: a forked process gets a copy of
    it, as it would of a bytearray, not the same memory (an anonymous map is shared by
    default)."""
    if sys.platform == "win32":
        return mmap.mmap(-1, size)
    return mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)


def _widen(pipe: IO[bytes]) -> None:
    """Ask for a pipe of ``_PIPE`` bytes (Linux; elsewhere, or refused, it stays as is)."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, _PIPE)


def _pipes(proc: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
    if proc.stdin is None or proc.stdout is None or proc.stderr is None:
        raise RuntimeError("the subject process was started without pipes")
    return proc.stdin, proc.stdout, proc.stderr


def _end(
    proc: subprocess.Popen[bytes],
    selector: selectors.BaseSelector,
    grace: float,
    tree: ProcessTree | None,
) -> int | None:
    """Close every pipe, wait up to ``grace`` s for the child to exit, then end it and every
    process of its tree (SIGTERM, SIGKILL ``_TERM_SECONDS`` later); the child is reaped.
    A signal cannot cut it short (it hurries it, and is raised after)."""
    with deferred():
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        selector.close()
        if tree is None:
            if grace > 0:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    return proc.wait(timeout=grace)
            return _end_alone(proc)
        if grace > 0:
            _exited(proc, grace)
        tree.end(_TERM_SECONDS)  # what is left of it: the child, its group, its descendants
        return proc.wait()


def _exited(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether the child exits within ``timeout`` s, left unreaped: until it is, its
    process id (its group's too) is no other process's, so its tree is ended safely."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:  # reaped already
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(_POLL_SECONDS, left))


def _end_alone(proc: subprocess.Popen[bytes]) -> int | None:
    """Terminate and kill the child (and its group, on POSIX) when there is no tree."""
    for sig, wait in ((signal.SIGTERM, _TERM_SECONDS), (signal.SIGKILL, None)):
        if proc.poll() is not None and sig == signal.SIGTERM:
            _signal_group(proc, signal.SIGKILL)  # leftovers of an exited leader
            return proc.returncode
        _signal_group(proc, sig)
        try:
            return proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return proc.wait()


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Signal the child's process group (it leads one), or the child alone off POSIX."""
    try:
        if _POSIX:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass
