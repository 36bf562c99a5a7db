"""The ``prefix-harness`` command line.

The exit code is the verdict, whatever became of the report. While a command runs, its
standard streams are guarded (``_Streams``): output that cannot be written — standard output
closed (``>&-``), on a full disk (``/dev/full``), or a pipe whose reader has gone (``| head
-1``) — is dropped instead of raising, the command finishes and exits with its own code, and
one sentence on stderr says the report was lost (none for a broken pipe: the reader chose to
stop reading). The stream is then pointed at ``os.devnull`` so that the interpreter's last
flush cannot fail either. Standard input that is closed or cannot be read, for a command that
reads ``-``, is a bad input: exit 2 with one sentence.

SIGINT, SIGTERM and SIGHUP end a command the same way (``harness._interrupt``): what it started
is ended, one sentence says so, and the exit code is 128 + the signal's number. Running out of
memory is one sentence too, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO, Final, TextIO, cast

from .._interrupt import Interrupted, handled, interruption
from .._version import __version__
from . import _capture, _check, _check_log, _diff, _rules
from ._common import EXIT_BAD_INPUT, fail

__all__ = ["build_parser", "run"]


_COMMANDS: Final = {
    "check": _check.add_parser,
    "diff": _diff.add_parser,
    "capture": _capture.add_parser,
    "check-log": _check_log.add_parser,
    "rules": _rules.add_parser,
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser; with ``only``, a command's name, the same parser
    holding that command alone (it parses that command's arguments exactly as the whole one:
    building every command's options costs a few milliseconds a run)."""
    parser = argparse.ArgumentParser(
        prog="prefix-harness",
        description="Conformance harness for the request prefixes of forked LLM subagents.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, add in _COMMANDS.items():
        if only is None or name == only:
            add(commands)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (README, "Commands"). ``SystemExit`` from
    the argument parser (``--help``, ``--version``, a usage error) passes through, its streams
    guarded too."""
    _occupy_closed_descriptors()
    streams = _Streams.install()
    with handled():  # until the last sentence is written: a second signal cannot cut it short
        try:
            return _dispatch(argv)
        except _StdinError as e:
            return fail(str(e), code=EXIT_BAD_INPUT)
        except Interrupted as e:  # during the parse, or a report's last write
            return fail(e.sentence(), code=e.exit_code)
        except Exception as e:  # raised over a signal's Interrupted: still the signal's end
            interrupted = interruption(e)
            if interrupted is None:
                raise
            return fail(interrupted.sentence(), code=interrupted.exit_code)
        finally:
            streams.finish()


def _dispatch(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in _COMMANDS else None)
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        code: int = args.run(args)
    except MemoryError:
        return fail(_OUT_OF_MEMORY.get(argv[0], _OUT_OF_MEMORY[""]))
    except OSError as e:  # an mmap or a fork refused: the same
        if e.errno != errno.ENOMEM:
            raise
        return fail(_OUT_OF_MEMORY.get(argv[0], _OUT_OF_MEMORY[""]))
    except Interrupted as e:
        return fail(e.sentence(), code=e.exit_code)
    except KeyboardInterrupt:  # raised by other means than a signal handled here
        return fail("interrupted", code=130)
    return code


_OUT_OF_MEMORY: Final = {
    "diff": "out of memory reading the bodies; lower --max-body-size",
    "check-log": "out of memory checking the log; give the check more memory",
    "check": "out of memory; the run was ended (give it more memory, or fewer --jobs)",
    "": "out of memory; the run was ended (give it more memory)",
}
"""What running out of memory says, by command (a subject's own output that cannot be held is
its failure instead, exit 3)."""


def _occupy_closed_descriptors() -> None:
    """Open ``os.devnull`` on each of descriptors 0, 1 and 2 that is closed, so that no file the
    command opens later (a record, a report) takes its number and receives what a child process
    or a stray write meant for a standard stream."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)


def _silence(stream: Any) -> None:
    """Point the descriptor under ``stream`` at ``os.devnull``: what is still buffered, and the
    interpreter's flush at exit, then go nowhere instead of failing again."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (a test's capture): nothing is flushed at exit
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)


class _StdinError(Exception):
    """Standard input is closed or cannot be read: ``str()`` is the sentence to print."""


class _Output:
    """A standard output stream that never raises: the first error that loses output is kept
    in ``error``, and everything written after it is dropped. ``buffer`` takes bytes."""

    def __init__(self, stream: TextIO | None, name: str) -> None:
        self.stream = stream
        self.name = name
        self.error: OSError | None = None
        if stream is None:
            self.error = OSError(errno.EBADF, f"{name} is closed")
        self.lost = False
        """Whether anything written was dropped."""
        self.buffer = _OutputBuffer(self)

    def _lose(self, error: OSError) -> None:
        if self.error is None:
            self.error = error
            _silence(self.stream)

    def write(self, text: str) -> int:
        if not text:
            return 0
        if self.error is None and self.stream is not None:
            try:
                self.stream.write(text)
            except UnicodeEncodeError:
                self.write_bytes(text.encode(self.encoding, "backslashreplace"))
            except ValueError:  # the stream was closed
                self._lose(OSError(errno.EBADF, f"{self.name} is closed"))
            except OSError as e:
                self._lose(e)
        if self.error is not None:
            self.lost = True
        return len(text)

    def write_bytes(self, data: bytes) -> int:
        if not data:
            return 0
        if self.error is None and self.stream is not None:
            try:
                self.stream.flush()  # what was written as text goes first
                self.stream.buffer.write(data)
            except ValueError:
                self._lose(OSError(errno.EBADF, f"{self.name} is closed"))
            except OSError as e:
                self._lose(e)
        if self.error is not None:
            self.lost = True
        return len(data)

    def writelines(self, lines: Iterator[str] | Sequence[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except ValueError:
            self._lose(OSError(errno.EBADF, f"{self.name} is closed"))
            self.lost = True
        except OSError as e:
            self._lose(e)
            self.lost = True

    def isatty(self) -> bool:
        try:
            return self.stream is not None and self.error is None and self.stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self.stream is None:
            raise OSError(errno.EBADF, f"{self.name} is closed")
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:
        return getattr(self.stream, "errors", None)

    @property
    def closed(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        if self.stream is None:
            raise AttributeError(name)
        return getattr(self.stream, name)


class _OutputBuffer:
    """The binary side of an ``_Output``."""

    def __init__(self, output: _Output) -> None:
        self._output = output

    def write(self, data: bytes) -> int:
        return self._output.write_bytes(bytes(data))

    def flush(self) -> None:
        self._output.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._output.isatty()

    def fileno(self) -> int:
        return self._output.fileno()


class _Input:
    """Standard input, for a command that reads ``-``: closed, or failing to read, it raises
    ``_StdinError`` with the sentence to print."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.buffer = _InputBuffer(self)

    def binary(self) -> BinaryIO:
        if self.stream is None:
            raise _StdinError("cannot read from stdin (-): stdin is closed")
        return self.stream.buffer

    def fail(self, error: OSError) -> _StdinError:
        return _StdinError(f"cannot read from stdin (-): {error.strerror or error}")

    def read(self, size: int = -1) -> str:
        if self.stream is None:
            raise _StdinError("cannot read from stdin (-): stdin is closed")
        try:
            return self.stream.read(size)
        except OSError as e:
            raise self.fail(e) from None

    def readline(self, size: int = -1) -> str:
        if self.stream is None:
            raise _StdinError("cannot read from stdin (-): stdin is closed")
        try:
            return self.stream.readline(size)
        except OSError as e:
            raise self.fail(e) from None

    def __iter__(self) -> Iterator[str]:
        while line := self.readline():
            yield line

    def isatty(self) -> bool:
        try:
            return self.stream is not None and self.stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self.stream is None:
            raise OSError(errno.EBADF, "stdin is closed")
        return self.stream.fileno()

    def __getattr__(self, name: str) -> Any:
        if self.stream is None:
            raise AttributeError(name)
        return getattr(self.stream, name)


class _InputBuffer:
    """The binary side of an ``_Input``."""

    def __init__(self, source: _Input) -> None:
        self._source = source

    def read(self, size: int = -1) -> bytes:
        try:
            return self._source.binary().read(size)
        except OSError as e:
            raise self._source.fail(e) from None

    def readline(self, size: int = -1) -> bytes:
        try:
            return self._source.binary().readline(size)
        except OSError as e:
            raise self._source.fail(e) from None

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line

    def fileno(self) -> int:
        return self._source.fileno()


class _Streams:
    """The standard streams as they were, and the guarded ones that stand in for them while a
    command runs."""

    def __init__(self) -> None:
        self.saved = (sys.stdin, sys.stdout, sys.stderr)
        self.stdin = _Input(sys.stdin)
        self.stdout = _Output(sys.stdout, "stdout")
        self.stderr = _Output(sys.stderr, "stderr")

    @classmethod
    def install(cls) -> _Streams:
        streams = cls()
        sys.stdin = cast(TextIO, streams.stdin)
        sys.stdout = cast(TextIO, streams.stdout)
        sys.stderr = cast(TextIO, streams.stderr)
        return streams

    def finish(self) -> None:
        """Flush what is buffered; say in one sentence on stderr if the report was lost; put
        the streams back as they were (silenced where they failed)."""
        self.stdout.flush()
        error = self.stdout.error
        if self.stdout.lost and error is not None and error.errno != errno.EPIPE:
            why = error.strerror or str(error)
            self.stderr.write(
                f"prefix-harness: error: the report could not be written to stdout ({why});"
                " the exit code is still the verdict\n"
            )
        self.stderr.flush()
        sys.stdin, sys.stdout, sys.stderr = self.saved
