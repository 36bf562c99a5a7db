"""The report options every rule-judging command shares (harness/cli/_common.py): ``-v``,
``--fail-on``, ``--summary-md`` and ``--write-expect`` on ``check-log`` and ``capture`` (the
``check`` side is in test_check.py), their JSON valid against the schema and their JUnit XML
against the XSD."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli import run
from tests.cli.test_check import markdown_tables
from tests.cli.test_check_log import planted
from tests.reports.formats import assert_valid_junit

ROOT = Path(__file__).parents[2]
AGENT = ROOT / "examples" / "fork-agent"
ENTRY_KEYS = ["dialect", "scenario", "rule", "message", "reason"]


def test_check_log_json_has_the_shared_entries(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], validated_reports: list[Any]
) -> None:
    log = planted(tmp_path)
    assert run(["check-log", log, "--json"]) == 1
    document = json.loads(capfd.readouterr().out)
    assert validated_reports == [document]
    assert (document["format_version"], document["command"]) == (2, "check-log")
    assert document["subject"] == "planted.jsonl"
    failures = document["unexpected_failures"]
    assert {(e["scenario"], e["rule"]) for e in failures} >= {("fork-1", "system-identical")}
    assert all(list(e) == ENTRY_KEYS for e in failures)
    assert document["expected_failures"] == document["unexpected_passes"] == []


def test_check_log_write_expect_then_expect_passes(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], validated_reports: list[Any]
) -> None:
    log = planted(tmp_path)
    known = tmp_path / "known.toml"
    assert run(["check-log", log, "--write-expect", str(known)]) == 1
    _, err = capfd.readouterr()
    count = known.read_text(encoding="utf-8").count("[[known-failure]]")
    assert count > 0
    assert err == f"prefix-harness: note: {known} written with {count} known failures\n"
    assert run(["check-log", log, "--expect", str(known), "--json"]) == 0
    document = json.loads(capfd.readouterr().out)
    assert len(document["expected_failures"]) == count
    assert all(e["reason"] == "TODO" for e in document["expected_failures"])
    marked = [f for r in document["reports"] for f in r["findings"] if f["expected"]]
    assert len(marked) == count
    assert {f["status"] for f in marked} == {"fail"}


def test_check_log_summary_md_verbose_and_fail_on(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = planted(tmp_path)
    summary = tmp_path / "summary.md"
    assert run(["check-log", log, "--summary-md", str(summary), "-v"]) == 1
    out, _ = capfd.readouterr()
    assert "\nalso: 0 accepted divergences, 0 warnings, 0 skipped scenarios\nchecked: " in out
    assert "\n  ✓ well-formed " in out, "-v lists every rule"
    text = summary.read_text(encoding="utf-8")
    assert text.startswith(
        "## ❌ prefix-harness check-log: not conforming: system-identical, byte-prefix failed"
        " (exit 1)\n"
    )
    _, failures = markdown_tables(text)
    assert ["`system-identical`", "openai", "fork-1"] in [row[:3] for row in failures]
    # --fail-on warning changes nothing for a run that fails anyway
    assert run(["check-log", log, "--fail-on", "warning"]) == 1


def test_check_log_junit_xml_is_valid_against_the_xsd(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "log.xml"
    odd = tmp_path / "odd.jsonl"
    odd.write_text(
        '{"body": {"model": "m", "messages": [{"role": ["user"]}]}, "dialect": "openai"}\n'
    )
    assert run(["check-log", planted(tmp_path), "--junit-xml", str(junit)]) == 1
    assert_valid_junit(junit.read_bytes())
    assert run(["check-log", str(odd), "--junit-xml", str(junit)]) == 4
    assert_valid_junit(junit.read_bytes())


def test_capture_takes_the_report_options(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], validated_reports: list[Any]
) -> None:
    summary, known = tmp_path / "summary.md", tmp_path / "known.toml"
    argv = ["capture", "--dialect", "openai", "--script", str(AGENT / "script.json")]
    argv += ["--record", str(tmp_path / "record.jsonl"), "--json", "-v", "--fail-on", "warning"]
    argv += ["--summary-md", str(summary), "--write-expect", str(known)]
    assert run([*argv, "--", sys.executable, str(AGENT / "agent.py")]) == 0
    document = json.loads(capfd.readouterr().out)
    assert validated_reports == [document]
    assert (document["command"], document["exit_code"]) == ("capture", 0)
    assert summary.read_text(encoding="utf-8").startswith(
        "## ✅ prefix-harness capture: conforming (exit 0)\n"
    )
    assert "[[known-failure]]" not in known.read_text(encoding="utf-8")
