"""Output files written whole (harness/_files.py): beside the target and renamed, an old
file untouched when writing fails, appends cut back, paths checked before a run. A real
failing write: a child process whose file size limit (RLIMIT_FSIZE) cuts the write short,
as a full disk does, on every Linux machine."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from harness._files import append_whole, output_problem, same_outputs, target, write_whole

LIMITED = """
import resource, signal, sys
from harness._files import append_whole, write_whole
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[3]), int(sys.argv[3])))
write = append_whole if sys.argv[1] == "append" else write_whole
try:
    write(sys.argv[2], b"x" * 100_000)
except OSError as e:
    print(e.strerror)
"""


def _limited(how: str, path: Path, limit: int) -> str:
    """Write 100,000 bytes to ``path`` in a child whose files may not grow past ``limit``;
    what the child said (the error, or nothing)."""
    done = subprocess.run(
        [sys.executable, "-c", LIMITED, how, str(path), str(limit)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_report_replaces_the_old_one_whole_and_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "report.xml"
    path.write_bytes(b"old")
    path.chmod(0o640)
    write_whole(path, b"new report")
    assert path.read_bytes() == b"new report"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["report.xml"]  # no temporary file left


def test_a_write_that_fails_leaves_the_old_report_untouched(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_bytes(b"the old report\n")
    assert _limited("write", path, 50_000) == "File too large"
    assert path.read_bytes() == b"the old report\n"
    assert os.listdir(tmp_path) == ["report.html"]
    assert _limited("write", tmp_path / "new.html", 50_000) == "File too large"
    assert not (tmp_path / "new.html").exists()  # never an empty or cut-short report


def test_an_append_that_fails_is_cut_back(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_bytes(b"## the first command's summary\n")
    assert _limited("append", path, 50_000) == "File too large"
    assert path.read_bytes() == b"## the first command's summary\n"
    append_whole(path, b"## the second\n")
    assert path.read_bytes() == b"## the first command's summary\n## the second\n"


def test_a_symlink_s_target_is_replaced_and_a_device_written_directly(tmp_path: Path) -> None:
    (tmp_path / "real.xml").write_bytes(b"old")
    (tmp_path / "link.xml").symlink_to("real.xml")
    write_whole(tmp_path / "link.xml", b"new")
    assert (tmp_path / "link.xml").is_symlink()
    assert (tmp_path / "real.xml").read_bytes() == b"new"
    assert target(tmp_path / "link.xml") == tmp_path / "real.xml"
    write_whole("/dev/null", b"nothing is renamed over a device")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_output_problems_are_one_sentence_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    missing = tmp_path / "no" / "r.xml"
    assert output_problem(tmp_path / "r.xml", "JUnit XML report") is None
    assert output_problem(missing, "JUnit XML report") == (
        f"{missing}: the JUnit XML report cannot be written: the directory {missing.parent}"
        " does not exist"
    )
    assert output_problem(tmp_path, "summary") == (
        f"{tmp_path}: the summary cannot be written: it is a directory"
    )
    under_a_file = tmp_path / "file" / "r.xml"
    assert "cannot be written" in (output_problem(under_a_file, "HTML report") or "")
    assert output_problem("/dev/null", "HTML report") is None
    assert output_problem("/dev/null", "record", regular=True) == (
        "/dev/null: the record cannot be written: it is not a regular file"
    )
    assert os.listdir(tmp_path) == ["file"]  # the probe file is gone


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_a_directory_that_takes_no_file_is_found() -> None:
    """Even root cannot create a file in /proc: the probe finds it before any run."""
    problem = output_problem("/proc/r.xml", "HTML report") or ""
    assert problem.startswith("/proc/r.xml: the HTML report cannot be written: no file can be")
    assert "created in /proc (" in problem


def test_two_outputs_naming_one_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to("r.xml")
    paths: dict[str, str | Path | None] = {
        "--html": tmp_path / "r.html",
        "--junit-xml": tmp_path / "r.xml",
        "--summary-md": None,
    }
    assert same_outputs(paths) is None
    paths["--write-expect"] = tmp_path / "link"
    assert same_outputs(paths) == (
        f"--junit-xml and --write-expect name the same file {tmp_path / 'link'}: give each its own"
    )
