"""``--html FILE`` of ``check``, ``capture`` and ``check-log`` (harness/cli/_check.py,
_capture.py, _check_log.py): the page is written beside the usual report, the exit code is
the command's, the help says what the flag does, and a path that cannot be written exits 2
with one sentence. One capture page is opened in a real headless Chromium."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import run
from tests.cli.test_check import QUICK
from tests.cli.test_check_log import planted
from tests.reports.browser import Node, dump_dom, parse

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "fork-agent"
TOOL_ORDER = "python:tests.cli.check_subjects:tool_order"
WARNS = "python:tests.cli.check_subjects:tool_choice"
"""A subject whose children only warn."""


def _page(path: Path) -> Node:
    return parse(path.read_text(encoding="utf-8"))


def _status(page: Node, rule: str) -> str:
    return page.find("td", data_rule=rule, data_dialect="openai").attrs["data-status"]


def test_check_writes_the_page_and_keeps_its_report_and_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html = tmp_path / "check.html"
    assert run(["check", "--subject", TOOL_ORDER, *QUICK, "--seed", "3", "--html", str(html)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("subject: tool-order    dialects: openai\n")  # the text report too
    page = _page(html)
    assert page.find("div", class_="verdict").attrs["data-exit"] == "1"
    assert "3" in page.find("dl", class_="facts").text()
    assert _status(page, "tools-identical") == "fail"
    assert page.find_all("article", data_rule="tools-identical")


def test_a_conforming_check_page_says_exit_0(tmp_path: Path) -> None:
    html = tmp_path / "ok.html"
    assert run(["check", *QUICK, "--html", str(html)]) == 0
    page = _page(html)
    assert page.find("div", class_="verdict").attrs["data-exit"] == "0"
    assert "no unexpected failure" in page.find("section", id="failures").text()


def test_check_log_writes_the_page_with_a_timeline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html = tmp_path / "log.html"
    assert run(["check-log", planted(tmp_path), "--html", str(html)]) == 1
    assert "check FAILED" in capsys.readouterr().out
    page = _page(html)
    assert page.find("h1").text() == "prefix-harness check-log"
    assert "planted.jsonl" in page.find("dl", class_="facts").text()
    lanes = page.find("section", id="timeline").find_all("div", class_="conversation")
    assert [lane.attrs["data-kind"] for lane in lanes] == ["parent", "child"]
    assert _status(page, "system-identical") == "fail"


def test_check_log_json_and_html_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html = tmp_path / "log.html"
    assert run(["check-log", planted(tmp_path), "--json", "--html", str(html)]) == 1
    assert capsys.readouterr().out.startswith("{")
    assert _page(html).find("div", class_="verdict").attrs["data-exit"] == "1"


@pytest.mark.parametrize("command", ["check", "check-log"])
def test_a_path_that_cannot_be_written_exits_2_with_one_sentence(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "no-such-folder" / "page.html"
    argv = [*QUICK] if command == "check" else [planted(tmp_path)]
    assert run([command, *argv, "--html", str(target)]) == 2
    out, err = capsys.readouterr()
    assert err == (
        f"prefix-harness: error: {target}: the HTML report cannot be written: the directory"
        f" {target.parent} does not exist\n"
    )
    assert out == ""  # said before the run, not after it
    assert not target.exists()


@pytest.mark.parametrize("command", ["check", "check-log", "capture"])
def test_the_help_explains_the_flag(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--html FILE" in help_text
    assert "self-contained HTML report" in help_text


def test_capture_writes_the_page_of_a_real_agent(tmp_path: Path) -> None:
    """The example fork agent under capture: exit 0, and the page opens in Chromium with a
    lane per conversation, the parent's first and each faithful child served by the cache."""
    html = tmp_path / "capture.html"
    command = [sys.executable, "-m", "harness", "capture", "--dialect", "openai"]
    command += ["--script", str(AGENT / "script.json"), "--record", str(tmp_path / "r.jsonl")]
    command += ["--html", str(html), "--", sys.executable, str(AGENT / "agent.py")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    dom = dump_dom(html, tmp_path)
    assert dom.find("h1").text() == "prefix-harness capture"
    assert dom.find("div", class_="verdict").attrs["data-exit"] == "0"
    lanes = dom.find("section", id="timeline").find_all("div", class_="conversation")
    kinds = [lane.attrs["data-kind"] for lane in lanes]
    assert kinds[0] == "parent"
    assert kinds.count("child") >= 3  # two fork siblings and a spawned helper
    for lane in lanes:
        if lane.attrs["data-kind"] == "child":
            first = lane.find("div", class_="request")
            assert int(first.attrs["data-cached"]) > 0  # its first request reuses a cache entry
    assert not [row for row in dom.find_all("td", class_="cell") if "fail" in row.attrs["class"]]


def test_the_check_page_shows_a_run_failed_on_warnings(tmp_path: Path) -> None:
    html = tmp_path / "warned.html"
    argv = ["check", "--subject", WARNS, *QUICK, "--fail-on", "warning", "--html", str(html)]
    assert run(argv) == 1
    header = _page(html).find("header")
    assert header.find("div", class_="verdict").attrs["data-exit"] == "1"
    assert header.find("li").text().startswith("--fail-on warning: 7 warnings (first: ")
