"""Records and reports are whole and belong to their run: two captures on one record file
(the default one in a shared directory included) never mix; a full disk — a small tmpfs
where the machine lets one be mounted, and on every machine a file size limit, which cuts a
write short in the kernel the same way — leaves only whole lines; a report that cannot be
written leaves the old one untouched and no temporary file. Each case asserts the exit
code, one sentence, no process of the run left and the files."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import ROOT, Harness, one_sentence, whole_lines

BIG = "x" * 20_000
"""Padding that makes each request's record line about 20 KB."""


@pytest.mark.parametrize("record", ["run.jsonl", None], ids=["given", "default-capture.jsonl"])
def test_a_second_capture_on_the_same_record_refuses_at_once(
    harness: Callable[..., Harness],
    agent: Path,
    script: Path,
    tmp_path: Path,
    record: str | None,
) -> None:
    ran = tmp_path / "second-ran"
    option = [] if record is None else ["--record", record]
    path = tmp_path / (record or "capture.jsonl")
    first = harness("capture", "--dialect", "openai", "--script", str(script), *option,
                    "--timeout", "8", "--", sys.executable, str(agent), "2",
                    cwd=tmp_path)  # fmt: skip
    first.wait_for(first.output_has("called"))
    second = harness("capture", "--dialect", "openai", "--script", str(script), *option,
                     "--", "sh", "-c", f"touch {ran}", cwd=tmp_path)  # fmt: skip
    assert second.wait() == 2
    assert second.ended is not None
    assert second.ended < 30  # at once: not after the first run
    assert one_sentence(second.stderr) == (
        f"prefix-harness: error: the record file {record or 'capture.jsonl'} is being written by"
        f" another run (pid {first.process.pid}), as {path}.partial: give each run its own"
        " --record"
    )
    assert not ran.exists()  # its command never ran
    assert second.left() == []
    assert first.wait() == 3  # the first one's own verdict: its agent timed out
    assert first.left() == []
    lines = whole_lines(path)
    assert [line["seq"] for line in lines] == [1, 2]  # its own requests, nobody else's
    assert all("hi " in str(line["body"]) for line in lines)


def test_a_full_disk_leaves_whole_lines_and_a_record_check_log_reads(
    agent: Path, script: Path, tmp_path: Path
) -> None:
    """A real full disk: a 256 KiB tmpfs in a mount namespace of its own (the test needs
    ``unshare`` and a kernel that lets it mount; it says so when it cannot)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare(1): a tmpfs cannot be mounted for the test")
    probe = subprocess.run(
        [unshare, "-rm", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {tmp_path}"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs in a user namespace here: {probe.stderr.strip()}")
    disk, kept = tmp_path / "disk", tmp_path / "kept"
    disk.mkdir()
    kept.mkdir()
    inside = (
        f"mount -t tmpfs -o size=256k tmpfs {disk} && cd {ROOT} && "
        f"{sys.executable} -m harness capture --dialect openai --script {script} --record"
        f" {disk}/run.jsonl -- {sys.executable} {agent} 40 {BIG} > {kept}/out 2> {kept}/err;"
        f" echo $? > {kept}/code; cp {disk}/run.jsonl {kept}/run.jsonl;"
        f" ls -A {disk} > {kept}/listing"
    )
    done = subprocess.run([unshare, "-rm", "sh", "-c", inside], timeout=180)
    assert done.returncode == 0
    assert (kept / "code").read_text() == "2\n"
    err = (kept / "err").read_text()
    sentence = one_sentence(err)
    assert sentence.startswith(
        f"prefix-harness: error: the record file {disk}/run.jsonl cannot be written (No space"
        " left on device); "
    )
    assert sentence.endswith(" requests were recorded before; the command was ended")
    recorded = int(sentence.split("); ")[1].split()[0])
    lines = whole_lines(kept / "run.jsonl")
    assert [line["seq"] for line in lines] == list(range(1, recorded + 1))
    assert 5 < recorded < 40  # the disk filled in the middle of the run
    assert (kept / "listing").read_text() == "run.jsonl\n"  # put in place, no partial left
    check = subprocess.run(
        [sys.executable, "-m", "harness", "check-log", str(kept / "run.jsonl")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert check.returncode == 4, check.stderr  # read whole: nothing to check, no torn line


def test_a_write_cut_short_by_the_kernel_leaves_whole_lines(
    harness: Callable[..., Harness], agent: Path, script: Path, tmp_path: Path
) -> None:
    """The same on every machine: a file size limit (RLIMIT_FSIZE) makes the kernel cut a
    write short and fail the next, as a full disk does."""
    record = tmp_path / "run.jsonl"
    run = harness("capture", "--dialect", "openai", "--script", str(script),
                  "--record", str(record), "--", sys.executable, str(agent), "40", BIG,
                  limits={resource.RLIMIT_FSIZE: 200_000})  # fmt: skip
    assert run.wait() == 2
    assert run.left() == []
    sentence = one_sentence(run.stderr)
    assert f"the record file {record} cannot be written (File too large); " in sentence
    lines = whole_lines(record)
    assert 5 < len(lines) < 40
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert not Path(f"{record}.partial").exists()


@pytest.mark.parametrize("option", ["--junit-xml", "--html", "--summary-md", "--write-expect"])
def test_a_report_that_cannot_be_written_leaves_the_old_one_untouched(
    harness: Callable[..., Harness], tmp_path: Path, option: str
) -> None:
    from tests.cli.test_check_log import planted

    log = planted(tmp_path)
    report = tmp_path / "old-report"
    report.write_bytes(b"the last run's report\n")
    run = harness("check-log", log, option, str(report),
                  limits={resource.RLIMIT_FSIZE: 300})  # fmt: skip
    assert run.wait() == 2
    assert run.left() == []
    assert "cannot be written (File too large)" in one_sentence(run.stderr)
    assert report.read_bytes() == b"the last run's report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["old-report", "planted.jsonl", run.out.name, run.err.name]
    )  # no temporary file left beside it


def test_a_step_summary_append_that_fails_is_cut_back(
    harness: Callable[..., Harness], tmp_path: Path
) -> None:
    from tests.cli.test_check_log import planted

    log = planted(tmp_path)
    summary = tmp_path / "step-summary.md"
    summary.write_bytes(b"## an earlier command's summary\n")
    run = harness("check-log", log, "--summary-md", str(summary),
                  env={"GITHUB_STEP_SUMMARY": str(summary)},
                  limits={resource.RLIMIT_FSIZE: 300})  # fmt: skip
    assert run.wait() == 2
    assert "the summary cannot be written (File too large)" in one_sentence(run.stderr)
    assert summary.read_bytes() == b"## an earlier command's summary\n"
    assert run.left() == []


def test_an_unwritable_report_is_found_before_the_agent_runs(
    harness: Callable[..., Harness], agent: Path, script: Path, tmp_path: Path
) -> None:
    record = tmp_path / "run.jsonl"
    record.write_bytes(b"an earlier record\n")
    run = harness("capture", "--dialect", "openai", "--script", str(script),
                  "--record", str(record), "--junit-xml", str(tmp_path / "no" / "r.xml"),
                  "--", sys.executable, str(agent))  # fmt: skip
    assert run.wait() == 2
    assert one_sentence(run.stderr) == (
        f"prefix-harness: error: {tmp_path / 'no' / 'r.xml'}: the JUnit XML report cannot be"
        f" written: the directory {tmp_path / 'no'} does not exist"
    )
    assert run.stdout == ""  # no fake started, no agent run
    assert run.left() == []
    assert record.read_bytes() == b"an earlier record\n"
