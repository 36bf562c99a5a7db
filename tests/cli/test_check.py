"""``prefix-harness check`` (harness/cli/_check.py): every flag, the exit codes of the README and
bad input reported as one sentence. Run in process; subjects that are processes (the fakes,
the example subjects) are real processes."""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from harness.check import bundled_fixtures
from harness.cli import run
from harness.dialects import all_dialects
from harness.rules import catalog
from harness.rules._checks import CHECKS
from harness.scenarios import load_fixtures
from tests.reports.formats import assert_valid_junit, assert_valid_report

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "subjects" / "fakes"
ONESHOT = bundled_fixtures() / "oneshot.json"
ONESHOT_IDS = [s.id for s in load_fixtures(ONESHOT)]
QUICK = ("--fixtures", str(ONESHOT), "--examples", "0", "--dialect", "openai")
"""Six fixtures in one dialect, nothing generated: a run in well under a second."""


def check(*argv: str) -> int:
    return run(["check", *argv])


def fake(name: str, *args: str) -> str:
    """The --subject spelling of a fake protocol subject (openai, one-shot only)."""
    return "cmd:" + shlex.join([sys.executable, str(FAKES / f"{name}.py"), *args])


def fixtures_with(tmp_path: Path, *ids: str) -> Path:
    """A fixture file of copies of the first one-shot fixture under ``ids`` (a fake
    misbehaves on ids starting with "bad")."""
    document = json.loads(ONESHOT.read_text(encoding="utf-8"))
    first = document["scenarios"][0]
    document["scenarios"] = [dict(first, id=i) for i in ids]
    path = tmp_path / "fixtures.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def table_header(out: str) -> list[str]:
    return next(line for line in out.splitlines() if line.startswith("rule ")).split()


def report_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = check(*argv, "--json")
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, document


# --- no arguments, and the example subjects ---------------------------------------------------


def test_no_arguments_checks_the_reference_on_everything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert check() == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "subject: reference    dialects: anthropic, gemini, openai, openai-responses"
    corpus = len(load_fixtures(bundled_fixtures()))
    found = re.fullmatch(r"(\d+) scenario runs \((\d+) of them generated\)", lines[1])
    assert found is not None
    runs, generated = map(int, found.groups())
    dialects = len(all_dialects())
    assert 0 < generated <= 25 * dialects
    assert runs == corpus * dialects + generated
    assert lines[-1] == "verdict: conforming — exit 0"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_example_subject_conforms(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert check("--subject", "cmd:node examples/node-subject/subject.js", "--examples", "3") == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "subject: node-example    dialects: anthropic, gemini, openai, openai-responses\n"
    )
    assert out.endswith("verdict: conforming — exit 0\n")


# --- --subject --------------------------------------------------------------------------------


def test_subject_reference(capsys: pytest.CaptureFixture[str]) -> None:
    assert check("--subject", "reference", *QUICK) == 0
    assert capsys.readouterr().out.startswith("subject: reference    dialects: openai\n")


def test_subject_python_factory(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert check("--subject", "python:tests.cli.check_subjects:tool_order", *QUICK) == 1
    out = capsys.readouterr().out
    assert out.startswith("subject: tool-order    dialects: openai\n")
    assert "✗ openai · fork-ends-model-calls · tools-identical: " in out


def test_subject_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    subject = f"cmd:{shlex.quote(sys.executable)} examples/python-subject/subject.py"
    assert check("--subject", subject, *QUICK) == 0
    out = capsys.readouterr().out
    assert out.startswith("subject: reference    dialects: openai\n")
    assert out.endswith("verdict: conforming — exit 0\n")


@pytest.mark.parametrize(
    ("subject", "problem"),
    [
        ("refrence", "unknown subject 'refrence'; use reference, python:"),
        ("python:tests.cli.no_such_module:f", "no module named 'tests.cli.no_such_module'"),
        ("python:tests.cli.check_subjects:not_a_subject", "returned a int, not a Subject"),
        ("cmd:no-such-program-xyz --serve", "'no-such-program-xyz' is not a command on PATH"),
        ("cmd:", "the command line is empty"),
    ],
)
def test_a_bad_subject_is_bad_usage(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    subject: str,
    problem: str,
) -> None:
    monkeypatch.chdir(ROOT)
    assert check("--subject", subject, *QUICK) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("prefix-harness: error: ")
    assert problem in captured.err


def test_a_subject_that_cannot_start_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert check("--subject", fake("bad_start", "exit"), *QUICK) == 3
    err = capsys.readouterr().err
    assert "exited during start (exit code 4)" in err
    assert "last lines of the subject's stderr:\n  | fake: cannot find my configuration\n" in err


def test_a_start_failure_shows_the_stderr_with_control_characters_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert check("--subject", fake("bad_start", "ansi"), *QUICK) == 3
    err = capsys.readouterr().err
    assert "exited during start (exit code 5)" in err
    assert "  | fake: loading\n  | \\x1b[2J\\x1b]0;owned\\x07fake: \\x1b[31mno config" in err
    assert "\x1b" not in err


@pytest.mark.parametrize(
    ("factory", "raised"),
    [
        ("exit_zero", "SystemExit(0)"),
        ("generator_exit", "GeneratorExit"),
        ("keyboard_interrupt", "KeyboardInterrupt"),
    ],
)
def test_a_python_subject_that_exits_is_a_crash_not_a_silent_exit(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    factory: str,
    raised: str,
) -> None:
    monkeypatch.chdir(ROOT)
    subject = f"python:tests.subjects.exiting_subjects:{factory}"
    assert check("--subject", subject, *QUICK) == 3
    out = capsys.readouterr().out
    forks = [s.id for s in load_fixtures(ONESHOT) if s.action == "fork"]
    assert forks
    for scenario_id in forks:
        assert f"subject crashed in scenario {scenario_id!r}: assemble raised {raised}" in out
    assert out.endswith(f"({len(forks)} crash/hang/protocol errors) — exit 3\n")


def test_the_users_ctrl_c_still_interrupts_a_python_subject(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert check("--subject", "python:tests.subjects.exiting_subjects:ctrl_c", *QUICK) == 130
    assert capsys.readouterr().err.endswith("prefix-harness: error: interrupted by SIGINT\n")


def test_a_body_the_rules_cannot_evaluate_fails_that_scenario_and_the_run_goes_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = CHECKS["well-formed"]

    def tripping(ctx: Any) -> Any:  # a check that trips on a 500-deep body
        if ctx.scenario.id.startswith("bad"):
            raise RecursionError("maximum recursion depth exceeded while encoding")
        return real(ctx)

    monkeypatch.setitem(CHECKS, "well-formed", tripping)
    fixtures = fixtures_with(tmp_path, "ok-1", "bad-deep", "ok-2")
    argv = ["--subject", fake("deep"), "--fixtures", str(fixtures), "--examples", "0"]
    code, document = report_json(capsys, *argv)
    assert code == 3
    (failure,) = document["subject_failures"]
    assert failure["scenario"] == "bad-deep"
    assert failure["message"] == (
        "protocol error in scenario 'bad-deep': the harness cannot evaluate the bodies it "
        "returned: rule well-formed raised RecursionError: maximum recursion depth exceeded "
        "while encoding"
    )
    assert [r["scenario"] for r in document["reports"]] == ["ok-1", "bad-deep", "ok-2"]


def test_a_subject_that_skips_everything_is_inconclusive_and_exits_4(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert check("--subject", fake("skipper"), *QUICK) == 4
    out = capsys.readouterr().out
    assert "verdict: INCONCLUSIVE, nothing was checked — exit 4\n" in out
    assert f"  none of the {len(ONESHOT_IDS)} scenario runs was checked by any rule\n" in out
    assert f"  {len(ONESHOT_IDS)} × skipped by the subject: not implemented yet\n" in out
    assert "conforming" not in out


def test_an_inconclusive_run_says_why_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert check("--subject", fake("skipper"), *QUICK, "--json") == 4
    document = json.loads(capsys.readouterr().out)
    assert document["exit_code"] == 4
    assert document["inconclusive"][0].startswith("none of the ")


# --- --dialect --------------------------------------------------------------------------------


def test_dialects_are_the_ones_asked_for_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--fixtures", str(ONESHOT), "--examples", "0"]
    assert check(*argv, "--dialect", "openai", "--dialect", "gemini", "--dialect", "openai") == 0
    out = capsys.readouterr().out
    assert table_header(out) == ["rule", "openai", "gemini"]
    assert f"{len(ONESHOT_IDS) * 2} scenario runs" in out


def test_a_dialect_the_subject_lacks_is_skipped_with_a_note(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fixtures = fixtures_with(tmp_path, "plain")
    argv = ["--subject", fake("slow"), "--fixtures", str(fixtures), "--examples", "0"]
    check(*argv, "--dialect", "gemini", "--dialect", "openai")
    captured = capsys.readouterr()
    assert "prefix-harness: note: the subject has no gemini dialect; skipped" in captured.err
    assert table_header(captured.out) == ["rule", "openai"]
    assert check(*argv, "--dialect", "gemini") == 2
    assert "the subject 'fake' has none of the dialects asked for" in capsys.readouterr().err


def test_an_unknown_dialect_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        check("--dialect", "klingon")
    assert exited.value.code == 2
    assert "invalid choice: 'klingon'" in capsys.readouterr().err


# --- --examples, --seed -----------------------------------------------------------------------


def test_examples_zero_runs_only_the_fixtures(capsys: pytest.CaptureFixture[str]) -> None:
    assert check(*QUICK) == 0
    assert f"\n{len(ONESHOT_IDS)} scenario runs (0 of them generated)\n" in capsys.readouterr().out


def test_examples_generates_that_many(capsys: pytest.CaptureFixture[str]) -> None:
    code, document = report_json(
        capsys, "--fixtures", str(ONESHOT), "--dialect", "openai", "--examples", "3"
    )
    assert code == 0
    assert document["generated"] == 3
    assert [r["scenario"] for r in document["reports"]][: len(ONESHOT_IDS)] == ONESHOT_IDS
    assert len(document["reports"]) == len(ONESHOT_IDS) + 3


@pytest.mark.parametrize(("argv", "problem"), [(["-1"], "--examples must be 0 or more")])
def test_negative_examples_is_bad_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], problem: str
) -> None:
    assert check("--examples", *argv) == 2
    assert capsys.readouterr().err == f"prefix-harness: error: {problem}\n"


def test_the_same_seed_gives_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--fixtures", str(ONESHOT), "--dialect", "openai", "--examples", "3"]
    outputs: dict[str, list[Any]] = {}
    for seed in ("1", "1", "2", "3"):
        code, document = report_json(capsys, *argv, "--seed", seed)
        assert code == 0
        outputs.setdefault(seed, []).append(document["reports"])
    assert outputs["1"][0] == outputs["1"][1]
    assert len({json.dumps(reports[0]) for reports in outputs.values()}) > 1, (
        "three seeds, one set of scenarios: --seed is not used"
    )
    # and without a seed, runs are derandomized: the same every time
    assert report_json(capsys, *argv)[1] == report_json(capsys, *argv)[1]


# --- --fixtures -------------------------------------------------------------------------------


def test_fixtures_from_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, document = report_json(capsys, *QUICK)
    assert code == 0
    assert [r["scenario"] for r in document["reports"]] == ONESHOT_IDS


def test_fixtures_from_a_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name in ("spawn.json", "oneshot.json", "fixtures.schema.json"):
        shutil.copy(bundled_fixtures() / name, tmp_path / name)
    spawn_ids = [s.id for s in load_fixtures(tmp_path / "spawn.json")]
    code, document = report_json(
        capsys, "--fixtures", str(tmp_path), "--examples", "0", "--dialect", "openai"
    )
    assert code == 0
    assert [r["scenario"] for r in document["reports"]] == ONESHOT_IDS + spawn_ids


def test_a_bad_fixture_is_one_sentence_naming_file_scenario_and_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = json.loads(ONESHOT.read_text(encoding="utf-8"))
    document["scenarios"][1]["history"][0]["role"] = "robot"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert check("--fixtures", str(path), "--examples", "0") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(
        f"prefix-harness: error: {path}: scenario '{ONESHOT_IDS[1]}' at "
        "scenarios[1].history[0].role: 'robot' is not one of"
    )


@pytest.mark.parametrize(
    ("name", "problem"), [("missing.json", "no such file"), ("", "holds no fixture files")]
)
def test_missing_fixtures_are_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, problem: str
) -> None:
    assert check("--fixtures", str(tmp_path / name), "--examples", "0") == 2
    assert problem in capsys.readouterr().err


# --- --expect ---------------------------------------------------------------------------------

KNOWN = """
[[known-failure]]
scenario = "*"
rule = "settings-identical"
reason = "the child is pinned to a small model: https://example.org/i/7"
"""


def test_expect_turns_known_failures_into_a_pass(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    expect = tmp_path / "known.toml"
    expect.write_text(KNOWN, encoding="utf-8")
    subject = ("--subject", "python:tests.cli.check_subjects:model_switched")
    assert check(*subject, *QUICK) == 1
    capsys.readouterr()
    assert check(*subject, *QUICK, "--expect", str(expect)) == 0
    out = capsys.readouterr().out
    assert "expected failures (" in out
    assert f"from {expect}):" in out
    assert "pinned to a small model" in out
    # the same file against a subject that does not fail there: the entry went stale
    assert check(*QUICK, "--expect", str(expect)) == 1
    assert "UNEXPECTED PASSES (" in capsys.readouterr().out


def test_expectations_that_can_never_match_are_stale_and_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    expect = tmp_path / "stale.toml"
    expect.write_text(
        "[[known-failure]]\n"
        'scenario = "fork-ends-usr"\n'
        'rule = "tools-identical"\n'
        'reason = "a typo"\n'
        "[[known-failure]]\n"
        'scenario = "*"\n'
        'rule = "cache-markers"\n'
        'dialect = "anthropic"\n'
        'reason = "not checked in this run"\n',
        encoding="utf-8",
    )
    assert check(*QUICK, "--expect", str(expect)) == 1
    out = capsys.readouterr().out
    assert "stale, never matches: no scenario 'fork-ends-usr' in this run" in out
    assert "stale, never matches: dialect 'anthropic' is not checked (checked: openai)" in out
    assert out.endswith("verdict: NOT conforming (2 unexpected results) — exit 1\n")


def test_a_bad_expectations_file_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    expect = tmp_path / "known.toml"
    expect.write_text(KNOWN.replace("settings-identical", "settings-identicle"), encoding="utf-8")
    assert check(*QUICK, "--expect", str(expect)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"prefix-harness: error: {expect}: known-failure[0]: unknown rule 'settings-identicle'; "
        "see `prefix-harness rules`\n"
    )
    assert check(*QUICK, "--expect", str(tmp_path / "none.toml")) == 2
    assert f"{tmp_path / 'none.toml'}: no such file" in capsys.readouterr().err


# --- --json, --junit-xml ----------------------------------------------------------------------


def test_json_report(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    subject = ("--subject", "python:tests.cli.check_subjects:tool_order")
    code, document = report_json(capsys, *subject, *QUICK)
    assert code == document["exit_code"] == 1
    assert document["subject"] == "tool-order"
    assert ("fork-ends-model-calls", "tools-identical") in {
        (u["scenario"], u["rule"]) for u in document["unexpected_failures"]
    }
    assert len(document["reports"]) == len(ONESHOT_IDS)


def test_junit_xml_is_written_beside_the_text_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "check.xml"
    assert check(*QUICK, "--junit-xml", str(path)) == 0
    assert capsys.readouterr().out.endswith("verdict: conforming — exit 0\n")
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    assert root.attrib["failures"] == "0"
    suites = [s.attrib["name"] for s in root.iter("testsuite")]
    assert suites == [f"prefix-harness.openai.{i}" for i in ONESHOT_IDS]


def test_an_unwritable_junit_path_is_bad_usage(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "no-such-folder" / "check.xml"
    assert check(*QUICK, "--junit-xml", str(path)) == 2
    out, err = capsys.readouterr()
    assert err == (
        f"prefix-harness: error: {path}: the JUnit XML report cannot be written: the directory"
        f" {path.parent} does not exist\n"
    )
    assert out == ""  # said before the run, not after it
    assert not path.exists()


# --- --timeout, --validate-protocol (process subjects) ----------------------------------------


def test_a_hanging_subject_times_out_and_exits_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fixtures = fixtures_with(tmp_path, "bad-hang")
    argv = ["--subject", fake("hang"), "--fixtures", str(fixtures), "--examples", "0"]
    started = time.monotonic()
    assert check(*argv, "--timeout", "0.3") == 3
    elapsed = time.monotonic() - started
    out = capsys.readouterr().out
    assert "subject hung in scenario 'bad-hang': no reply to seq 1 within 0.3 s" in out
    assert "fake: thinking very hard" in out  # the subject's stderr tail
    assert out.endswith("verdict: subject failed (1 crash/hang/protocol errors) — exit 3\n")
    # not a speed target: less than the default timeout shows the 0.3 s one was honoured
    assert elapsed < 10, f"a 0.3 s timeout took {elapsed:.1f} s (the default is 10 s)"


@pytest.mark.parametrize(
    ("flag", "seconds", "problem"),
    [
        ("--timeout", "0", "--timeout must be more than 0 seconds, not 0"),
        ("--timeout", "-1", "--timeout must be more than 0 seconds, not -1"),
        ("--timeout", "inf", "--timeout must be at most 86400 seconds (a day), not inf"),
        ("--timeout", "nan", "--timeout must be a number of seconds, not nan"),
        ("--deadline", "inf", "--deadline must be at most 86400 seconds (a day), not inf"),
        ("--deadline", "0", "--deadline must be more than 0 seconds, not 0"),
    ],
)
def test_a_timeout_must_be_a_finite_positive_number(
    capsys: pytest.CaptureFixture[str], flag: str, seconds: str, problem: str
) -> None:
    # an infinite timeout would accept a correct subject only to blame it later
    assert check(*QUICK, flag, seconds) == 2
    err = capsys.readouterr().err
    assert err == f"prefix-harness: error: {problem}\n"


def test_max_hangs_must_not_be_negative(capsys: pytest.CaptureFixture[str]) -> None:
    assert check(*QUICK, "--max-hangs", "-1") == 2
    assert capsys.readouterr().err == (
        "prefix-harness: error: --max-hangs must be 0 (never stop) or more\n"
    )


def test_a_subject_that_hangs_on_everything_is_stopped_after_three(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fixtures = fixtures_with(tmp_path, *(f"bad-{i}" for i in range(10)))
    argv = ["--subject", fake("hang"), "--fixtures", str(fixtures), "--examples", "25"]
    assert check(*argv, "--timeout", "0.3") == 3
    out = capsys.readouterr().out
    assert (
        "subject hung in scenario 'bad-2': no reply to seq 3 within 0.3 s; the subject is "
        "restarted for the next scenario; the subject hung on 3 scenarios in a row: the run is "
        "stopped, up to 32 scenario runs not run"
    ) in out
    assert out.endswith("verdict: subject failed (3 crash/hang/protocol errors) — exit 3\n")


def test_the_deadline_stops_the_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fixtures = fixtures_with(tmp_path, *(f"bad-{i}" for i in range(10)))  # 0.3 s each
    argv = ["--subject", fake("slow"), "--fixtures", str(fixtures), "--examples", "0"]
    assert check(*argv, "--deadline", "0.5") == 3
    out = capsys.readouterr().out
    assert "the run's deadline of 0.5 s has passed: the run is stopped" in out
    assert out.endswith("verdict: subject failed (1 crash/hang/protocol errors) — exit 3\n")


def test_validate_protocol_checks_replies_against_the_schema(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fixtures = fixtures_with(tmp_path, "bad-unknown-key", "plain")
    argv = ["--subject", fake("garbage"), "--fixtures", str(fixtures), "--examples", "0"]
    assert check(*argv) == 3
    out = capsys.readouterr().out
    assert "the skipped reply has unknown key 'chidren'" in out
    assert "schema" not in out
    assert check(*argv, "--validate-protocol") == 3
    out = capsys.readouterr().out
    assert "protocol error in scenario 'bad-unknown-key'" in out
    assert "the reply breaks the assemble-reply schema" in out


# --- progress ---------------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "subject", ["reference", "python:tests.cli.check_subjects:tool_order"], ids=["pass", "fail"]
)
def test_a_progress_bar_on_a_terminal_is_cleared_at_the_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], subject: str
) -> None:
    monkeypatch.chdir(ROOT)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    argv = ["--subject", subject, "--fixtures", str(ONESHOT), "--dialect", "openai"]
    check(*argv, "--examples", "4")
    written = terminal.getvalue()
    total = len(ONESHOT_IDS) + 4
    assert f"] 1/{total} openai {ONESHOT_IDS[0]}" in written
    assert f"] {total}/{total} " in written
    *_, cleared, after = written.rsplit("\r", 2)
    assert cleared.strip() == "", "the bar is not cleared"
    assert after == ""


def test_no_progress_and_no_terminal_mean_no_bar(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert check(*QUICK, "--no-progress") == 0
    assert terminal.getvalue() == ""
    plain = io.StringIO()  # not a terminal
    monkeypatch.setattr(sys, "stderr", plain)
    assert check(*QUICK) == 0
    assert plain.getvalue() == ""


# --- -v, --fail-on, --summary-md, --write-expect; the reports' formats ------------------------

WARNS = ("--subject", "python:tests.cli.check_subjects:tool_choice")
"""Passes every rule on the one-shot fixtures with 7 warnings (tool_choice changed)."""


def test_json_reports_follow_the_schema(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    validated_reports: list[Any],
) -> None:
    monkeypatch.chdir(ROOT)
    code, document = report_json(
        capsys, "--subject", "python:tests.cli.check_subjects:tool_order", *QUICK
    )
    assert validated_reports == [document]
    assert (code, document["format_version"], document["command"]) == (1, 2, "check")
    assert_valid_report(document)


def test_the_text_report_counts_warnings_and_verbose_lists_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert check(*WARNS, *QUICK) == 0
    out = capsys.readouterr().out
    also = "also: 0 accepted divergences, 7 warnings, 0 skipped scenarios"
    assert f"\n{also} (-v lists them)\nverdict: conforming — exit 0\n" in out
    assert "changes tool_choice" not in out
    assert check(*WARNS, *QUICK, "-v") == 0
    out = capsys.readouterr().out
    listed = out[out.index(also) :].splitlines()
    assert listed[1] == "warnings (7):"
    assert all(line.startswith("  ! openai · ") for line in listed[2:9])
    assert "tool-choice" not in listed[2] or "changes tool_choice" in listed[2]
    assert listed[9] == "verdict: conforming — exit 0"


def test_verbose_lists_skipped_scenarios_and_accepted_divergences(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert check("--subject", fake("skipper"), *QUICK, "-v") == 4
    out = capsys.readouterr().out
    count = len(ONESHOT_IDS)
    assert f"also: 0 accepted divergences, 0 warnings, {count} skipped scenarios\n" in out
    assert f"skipped scenarios ({count}):\n" in out
    for scenario in ONESHOT_IDS:
        assert f"  - openai · {scenario}: skipped by the subject: not implemented yet\n" in out
    continuable = bundled_fixtures() / "continuable.json"
    assert check("--fixtures", str(continuable), "--examples", "0", "--dialect", "openai") == 0
    out = capsys.readouterr().out
    found = re.search(r"also: (\d+) accepted divergences", out)
    assert found is not None
    assert int(found.group(1)) > 0


def test_fail_on_warning_fails_a_run_that_warns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    assert check(*WARNS, *QUICK, "--fail-on", "warning") == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1].startswith(
        "verdict: NOT conforming, --fail-on warning: 7 warnings (first: openai · "
    )
    assert captured.err.startswith("prefix-harness: --fail-on warning: 7 warnings (first: ")
    assert captured.err.endswith(" — exit 1\n")
    code, document = report_json(capsys, *WARNS, *QUICK, "--fail-on", "warning")
    assert code == document["exit_code"] == 1
    # the default, and a run without warnings, are not affected
    assert check(*WARNS, *QUICK, "--fail-on", "failure") == 0
    assert check(*QUICK, "--fail-on", "warning") == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        check(*QUICK, "--fail-on", "error")
    assert exited.value.code == 2
    assert "invalid choice: 'error'" in capsys.readouterr().err


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every table of a Markdown document, as rows of unescaped cells (the separator row
    dropped); a row whose cells an unescaped ``|`` would split shows as more cells."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in text.splitlines():
        if not line.startswith("| "):
            current = None
            continue
        cells = [
            re.sub(r"\\(.)", r"\1", cell.strip())
            for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])
        ]
        if current is None:
            current = []
            tables.append(current)
        if set(cells) != {"---"}:
            current.append(cells)
    return tables


def test_summary_md_has_the_verdict_the_table_and_the_failures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    path = tmp_path / "summary.md"
    path.write_text("old\n", encoding="utf-8")
    subject = ("--subject", "python:tests.cli.check_subjects:tool_order")
    assert check(*subject, *QUICK, "--summary-md", str(path)) == 1
    text = path.read_text(encoding="utf-8")
    assert text.startswith("## ❌ prefix-harness check: not conforming (exit 1)\n")  # overwritten
    rules, failures = markdown_tables(text)
    assert rules[0] == ["rule", "openai"]
    assert [row[0] for row in rules[1:]] == [f"`{info.id}`" for info in catalog()]
    assert dict(rules[1:])["`tools-identical`"] == f"{len(ONESHOT_IDS) - 1}✗ 1✓"
    assert failures[0] == ["rule", "dialect", "scenario", "reason", "bytes lost"]
    assert ["`tools-identical`", "openai", "fork-ends-user"] in [row[:3] for row in failures]
    assert all(len(row) == 5 and int(row[4].replace(",", "")) > 0 for row in failures[1:])
    assert "moved from" in failures[1][3]


def test_summary_md_appends_to_the_step_summary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "step-summary.md"
    path.write_text("# earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    assert check(*QUICK, "--summary-md", str(path)) == 0
    assert check(*QUICK, "--summary-md", str(path)) == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n## ✅ prefix-harness check: conforming (exit 0)\n")
    assert text.count("prefix-harness check: conforming") == 2
    assert check(*QUICK, "--summary-md", str(tmp_path / "none" / "s.md")) == 2
    assert "s.md: the summary cannot be written" in capsys.readouterr().err


def test_write_expect_then_expect_passes_the_same_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    subject = ("--subject", "python:tests.cli.check_subjects:tool_order")
    path = tmp_path / "known.toml"
    assert check(*subject, *QUICK, "--write-expect", str(path)) == 1
    failures = json.loads(check_json_text(capsys, *subject, *QUICK))["unexpected_failures"]
    text = path.read_text(encoding="utf-8")
    assert text.count("[[known-failure]]") == len(failures) > 0
    assert text.count('reason = "TODO"') == len(failures)
    assert check(*subject, *QUICK, "--expect", str(path)) == 0
    out = capsys.readouterr().out
    assert f"expected failures ({len(failures)}, from {path}):" in out
    # again over the file it read: overwritten, said so, the reasons kept
    path.write_text(text.replace('reason = "TODO"', 'reason = "issue 12"', 1), encoding="utf-8")
    assert check(*subject, *QUICK, "--expect", str(path), "--write-expect", str(path)) == 0
    err = capsys.readouterr().err
    assert err == f"prefix-harness: note: {path} overwritten with {len(failures)} known failures\n"
    rewritten = path.read_text(encoding="utf-8")
    assert rewritten.count('reason = "issue 12"') == 1
    assert rewritten.count('reason = "TODO"') == len(failures) - 1


def check_json_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    check(*argv, "--json")
    return capsys.readouterr().out


def test_junit_xml_is_valid_against_the_xsd(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    path = tmp_path / "check.xml"
    subject = ("--subject", "python:tests.cli.check_subjects:tool_order")
    assert check(*subject, *QUICK, "--junit-xml", str(path)) == 1
    assert_valid_junit(path.read_bytes())
    root = ET.parse(path).getroot()
    assert "skipped" not in root.attrib
    assert all(case.get("time") is not None for case in root.iter("testcase"))


def test_strict_bytes_flag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Children that spell their history objects' keys in another order send the parent's
    prompt: they conform on the rendered prefix and fail byte-prefix in the byte view."""
    monkeypatch.chdir(ROOT)
    subject = ("--subject", "python:tests.cli.check_subjects:envelope_respelled")
    code, document = report_json(capsys, *subject, *QUICK)
    assert code == 0, document["unexpected_failures"]
    code, document = report_json(capsys, *subject, *QUICK, "--strict-bytes")
    assert code == 1
    assert {e["rule"] for e in document["unexpected_failures"]} >= {"byte-prefix"}
