"""Output files written whole, and their paths checked before a run starts.

A report is written to a temporary file beside it and renamed into place, so that the path
holds the old report, untouched, or the new one whole — never an empty or cut-short file
(a full disk, a signal, a crash in between). The new file keeps an old one's permissions. A
symbolic link is followed: its target is replaced, not the link. A path that is not a
regular file (a terminal, a pipe, ``/dev/stdout``) is written directly: nothing can be
renamed over it. An append (``$GITHUB_STEP_SUMMARY``) is written at the end of the file and
cut back to the file's old size when it fails, so the file keeps only whole appends.

``output_problem`` says, before anything is run, why a path could not be written: a
directory, a missing directory, one where no file can be created, a device that cannot be
opened for writing.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from ._interrupt import deferred

__all__ = ["append_whole", "output_problem", "same_outputs", "target", "write_whole"]


def target(path: str | Path) -> Path:
    """The file ``path`` names: a symbolic link's target (followed to the end)."""
    return Path(os.path.realpath(path))


def _status(path: Path) -> os.stat_result | None:
    """``path``'s status, None when there is no such file; ``IsADirectoryError`` for a
    directory."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(status.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    return status


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_whole(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: beside it, then renamed into place (a path that is
    not a regular file is written directly). ``OSError`` says why it could not be; the old
    file is then untouched and no temporary file is left."""
    final = target(path)
    status = _status(final)
    if status is not None and not stat.S_ISREG(status.st_mode):
        with open(final, "wb") as out:  # a device or a pipe: nothing to rename over
            out.write(data)
        return
    temporary = final.with_name(f".{final.name}.{secrets.token_hex(4)}.tmp")
    with deferred():  # a signal cannot leave the temporary file behind
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            try:
                if status is not None:
                    os.fchmod(fd, stat.S_IMODE(status.st_mode))
                _write_all(fd, data)
            finally:
                os.close(fd)
            os.replace(temporary, final)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def append_whole(path: str | Path, data: bytes) -> None:
    """Append ``data`` to ``path`` (created if missing); when the write fails, the file is
    cut back to its size before, and ``OSError`` says why."""
    with deferred():
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            before = os.fstat(fd)
            try:
                _write_all(fd, data)
            except OSError:
                if stat.S_ISREG(before.st_mode):
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, before.st_size)
                raise
        finally:
            os.close(fd)


def output_problem(path: str | Path, what: str, *, regular: bool = False) -> str | None:
    """Why ``path`` cannot take the ``what`` (one sentence naming both), or None. A regular
    file is written aside and renamed, so its directory must take a new file (one is made
    and removed to make sure); with ``regular``, nothing else will do (a file read back)."""
    final = target(path)
    try:
        status = _status(final)
    except IsADirectoryError:
        return f"{path}: the {what} cannot be written: it is a directory"
    except OSError as e:
        return f"{path}: the {what} cannot be written ({e.strerror or e})"
    if status is not None and not stat.S_ISREG(status.st_mode):
        if regular:
            return f"{path}: the {what} cannot be written: it is not a regular file"
        if not os.access(final, os.W_OK):
            return f"{path}: the {what} cannot be written (Permission denied)"
        return None
    directory = final.parent
    if not directory.is_dir():
        return f"{path}: the {what} cannot be written: the directory {directory} does not exist"
    probe = directory / f".{final.name}.{secrets.token_hex(4)}.tmp"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except OSError as e:
        return (
            f"{path}: the {what} cannot be written: no file can be created in {directory}"
            f" ({e.strerror or e})"
        )
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return None


def same_outputs(paths: dict[str, str | Path | None]) -> str | None:
    """One sentence when two of the named outputs (``{"--html": path, ...}``) are one file,
    else None: each would overwrite the other."""
    seen: dict[Path, str] = {}
    for option, path in paths.items():
        if path is None or str(path) == "":
            continue
        final = target(path)
        if final in seen:
            return f"{seen[final]} and {option} name the same file {path}: give each its own"
        seen[final] = option
    return None
