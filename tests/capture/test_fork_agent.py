"""End to end: ``prefix-harness capture`` runs examples/fork-agent/agent.py (the standard
library alone, run without site-packages; real HTTP on loopback) and checks what it sent.
The correct agent passes; each planted bug fails with the rule that catches it named in the
report's failures and its last line."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).parents[2]
AGENT = ROOT / "examples" / "fork-agent"


def capture(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "harness", "capture", "--dialect", "openai"]
    command += ["--script", str(AGENT / "script.json"), "--record", str(tmp_path / "r.jsonl")]
    command += ["--junit-xml", str(tmp_path / "junit.xml")]
    agent_options = list(options)
    if "--json" in agent_options:
        agent_options.remove("--json")
        command.append("--json")
    command += ["--", sys.executable, "-S", str(AGENT / "agent.py"), *agent_options]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def failed_rules(tmp_path: Path) -> set[str]:
    cases = ET.parse(tmp_path / "junit.xml").getroot().findall("testsuite/testcase")
    return {str(c.get("name")) for c in cases if c.find("failure") is not None}


def test_the_correct_agent_passes(tmp_path: Path) -> None:
    done = capture(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "worker 'A: list the files': Worker done." in out
    assert "  conversation 1 (parent): requests 1, " in out
    assert "  ✓ siblings-1   fork at request 1: 2 fork calls in conversation 1 -> " in out
    assert out.count("  ✓ recursion-") == 2
    assert "  ✓ spawn-" in out
    assert out.endswith(
        "checked: 4 groups, 0 failed, 0 not checked"
        "; turns of 3 conversations, 0 not append-only\n"
        "verdict: conforming — exit 0\n"
    )
    assert len(out.splitlines()) <= 40, "a passing capture is a screen"
    assert failed_rules(tmp_path) == set()


@pytest.mark.parametrize(
    ("bug", "rule"),
    [
        ("timestamp", "system-identical"),
        ("tools", "tools-identical"),
        ("recursion", "recursion-rejected"),
        ("placeholder", "siblings-shared"),
    ],
)
def test_each_planted_bug_fails_its_rule(tmp_path: Path, bug: str, rule: str) -> None:
    done = capture(tmp_path, "--bug", bug)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"✗ {rule}: ") for line in lines)
    assert lines[-1].startswith("verdict: NOT conforming: ")
    assert rule in lines[-1].removeprefix("verdict: NOT conforming: ").split(" failed")[0]
    assert lines[-1].endswith(" — exit 1")
    assert re.search(r"^checked: \d+ groups, [12] failed", done.stdout, re.M)
    assert rule in failed_rules(tmp_path)


def test_json_report_keeps_stdout_clean(tmp_path: Path) -> None:
    done = capture(tmp_path, "--bug", "tools", "--json")
    assert done.returncode == 1, done.stderr
    document = orjson.loads(done.stdout)
    assert document["summary"]["failed"] == 1
    failing = {
        f["rule"] for r in document["reports"] for f in r["findings"] if f["status"] == "fail"
    }
    assert "tools-identical" in failing
    assert "running: " in done.stderr
    assert "parent: All done." in done.stderr  # the agent's own output
