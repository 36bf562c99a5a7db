"""The independent Node.js subject (tests/independent/) against the real CLI.

The subject was written from the documentation alone; these tests prove that the harness
accepts it as a conforming runtime with rendering choices of its own, and that each bug
planted in it (INDEPENDENT_SUBJECT_BUG) fails with the rule that names it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBJECT = "cmd:node tests/independent/subject.js"
DIALECTS = ("anthropic", "openai", "gemini")
FIXTURES = ROOT / "fixtures"


def _fixture_ids() -> set[str]:
    ids = set()
    for path in FIXTURES.glob("*.json"):
        if path.name.endswith(".schema.json"):
            continue
        ids.update(s["id"] for s in json.loads(path.read_text(encoding="utf-8"))["scenarios"])
    return ids


def check(*args: str, bug: str | None = None, examples: int = 10) -> dict[str, Any]:
    """Run `prefix-harness check --json` on the subject and return the report."""
    assert shutil.which("node"), "node is required for the independent subject"
    env = dict(os.environ)
    env.pop("INDEPENDENT_SUBJECT_BUG", None)
    if bug is not None:
        env["INDEPENDENT_SUBJECT_BUG"] = bug
    command = [sys.executable, "-m", "harness", "check", "--subject", SUBJECT, "--json"]
    command += ["--no-progress", "--examples", str(examples), *args]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.stdout, f"no report (exit {done.returncode}):\n{done.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["exit_code"] == done.returncode
    return report


def findings(report: dict[str, Any], status: str) -> list[tuple[str, str, str, str]]:
    return [
        (r["dialect"], r["scenario"], f["rule"], f["message"])
        for r in report["reports"]
        for f in r["findings"]
        if f["status"] == status
    ]


def test_the_correct_subject_conforms() -> None:
    report = check()
    failures = findings(report, "fail")
    assert not failures, "\n".join(" · ".join(f) for f in failures)
    assert report["exit_code"] == 0
    assert not report["subject_failures"]
    assert not report["inconclusive"]
    # every fixture ran in every dialect, and rules held on real bodies
    runs = {(r["dialect"], r["scenario"]) for r in report["reports"]}
    assert {(d, s) for d in DIALECTS for s in _fixture_ids()} <= runs
    assert report["generated"] > 0
    passed = {rule for _, _, rule, _ in findings(report, "pass")}
    assert {"byte-prefix", "history-inherited", "siblings-shared", "append-only"} <= passed
    assert {"spawn-isolated", "recursion-rejected", "call-pairing"} <= passed


@pytest.mark.parametrize(
    ("bug", "rules"),
    [
        ("date", {"system-identical", "byte-prefix"}),
        ("sorted-tools", {"tools-identical"}),
        ("whitespace", {"history-inherited", "byte-prefix"}),
    ],
)
def test_each_planted_bug_fails_with_its_rule(bug: str, rules: set[str]) -> None:
    # the fixtures alone show each bug; no generated scenario is needed (nor shrunk)
    report = check(bug=bug, examples=0)
    assert report["exit_code"] == 1
    assert not report["subject_failures"]
    failed = {rule for _, _, rule, _ in findings(report, "fail")}
    assert rules <= failed, f"{bug}: failed rules {sorted(failed)}"


def test_every_protocol_message_is_valid() -> None:
    report = check("--validate-protocol", examples=3)
    assert not report["subject_failures"], report["subject_failures"]
    assert report["exit_code"] in (0, 1)
    assert findings(report, "pass")
