"""The front door's functions (harness/_api.py): each gives what its command reports on, with
the command's verdict as ``exit_code``, and bad input as one ``InputError`` sentence."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from harness import (
    Captured,
    InputError,
    ReferenceSubject,
    capture_command,
    check_log,
    check_subject,
    diff,
)
from harness.check import bundled_fixtures
from harness.scenarios import load_fixtures
from tests.rules.bad_subjects import CASES

ROOT = Path(__file__).resolve().parents[1]
OPENAI = ROOT / "examples" / "openai"
SCRIPT = ROOT / "examples" / "capture" / "fork-siblings.json"
AGENT = ROOT / "examples" / "capture" / "toy_agent.py"
ONESHOT = bundled_fixtures() / "oneshot.json"


# --- check_subject ----------------------------------------------------------------------------


def test_a_subject_object_is_checked_as_it_is_and_a_bad_one_fails() -> None:
    good = check_subject(ReferenceSubject(), dialects="openai", fixtures=ONESHOT, examples=0)
    assert (good.exit_code, good.dialects, good.subject) == (0, ("openai",), "reference")
    case = CASES["tool-order"]
    bad = check_subject(case.subject, dialects=case.dialects, fixtures=ONESHOT, examples=0)
    assert bad.exit_code == 1
    assert case.rule in {f.rule for _, f in bad.unexpected_failures}


def test_scenarios_and_known_failures_may_be_given_as_objects() -> None:
    from harness.check import Expectations, KnownFailure

    case = CASES["tool-order"]
    scenarios = load_fixtures(ONESHOT)[:2]
    first = check_subject(case.subject, dialects=case.dialects, fixtures=scenarios, examples=0)
    assert [r.scenario_id for r in first.reports if r.dialect == case.dialects[0]] == [
        s.id for s in scenarios
    ]
    failing = {f.rule for _, f in first.unexpected_failures}
    assert case.rule in failing
    known = Expectations(tuple(KnownFailure("*", rule, "on purpose") for rule in failing), "here")
    again = check_subject(
        case.subject, dialects=case.dialects, fixtures=scenarios, examples=0, expect=known
    )
    assert (first.exit_code, again.exit_code) == (1, 0)


def test_a_spec_is_loaded_started_and_stopped(tmp_path: Path) -> None:
    run = check_subject(
        f"cmd:{sys.executable} {ROOT / 'examples' / 'python-subject' / 'subject.py'}",
        dialects=["gemini"],
        fixtures=ONESHOT,
        examples=1,
    )
    assert run.exit_code == 0
    assert run.generated == 1


@pytest.mark.parametrize(
    ("arguments", "sentence"),
    [
        ({"subject": "nobody"}, "unknown subject 'nobody'"),
        ({"examples": -1}, "examples must be 0 or more"),
        ({"timeout": 0}, "timeout "),
        ({"max_hangs": -1}, "max_hangs must be 0"),
        ({"jobs": 0}, "jobs must be 1 or more, not 0"),
        ({"subject": ReferenceSubject(), "jobs": 2}, "jobs above 1 need the subject as a spec"),
        ({"fixtures": ROOT / "no-such-fixtures"}, "no-such-fixtures"),
        ({"expect": ROOT / "no-such.toml"}, "no-such.toml"),
    ],
)
def test_bad_input_is_one_input_error(arguments: dict[str, object], sentence: str) -> None:
    with pytest.raises(InputError, match=sentence.replace("(", r"\(")):
        check_subject(**arguments)  # type: ignore[arg-type]


# --- diff ---------------------------------------------------------------------------------------


def test_a_body_as_bytes_or_as_a_file_gives_the_same_comparison() -> None:
    by_name = diff(OPENAI / "parent.json", str(OPENAI / "fork-broken.json"))
    by_bytes = diff(
        (OPENAI / "parent.json").read_bytes(), (OPENAI / "fork-broken.json").read_bytes()
    )
    assert not by_name.preserved
    assert by_name.divergence is not None
    assert by_bytes.divergence is not None
    assert by_name.divergence.offset == by_bytes.divergence.offset == 621  # rendered
    assert by_name.lost_tokens == by_bytes.lost_tokens > 0
    assert diff(OPENAI / "parent.json", OPENAI / "fork.json").preserved


def test_strict_bytes_judges_the_bytes_as_sent() -> None:
    """The byte view's stream is the segments as sent: the divergence lies at another offset
    (610, in compact JSON as sent) than in the rendered prefix (621)."""
    strict = diff(OPENAI / "parent.json", OPENAI / "fork-broken.json", strict_bytes=True)
    assert strict.strict
    assert strict.divergence is not None
    assert strict.divergence.offset == 610
    assert not strict.preserved


def test_diff_reads_the_dialect_given_or_refuses_an_unknown_one() -> None:
    parent, fork = OPENAI / "parent.json", OPENAI / "fork.json"
    assert diff(parent, fork, dialect="openai").dialect == "openai"
    with pytest.raises(InputError, match=r"^unknown dialect 'nope'; known: "):
        diff(parent, fork, dialect="nope")


def test_a_body_that_is_no_request_or_too_large_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^fork: "):
        diff(b"{}", b"[1, 2")
    with pytest.raises(InputError, match=r"no-such\.json"):
        diff(tmp_path / "no-such.json", b"{}")
    with pytest.raises(InputError):
        diff(OPENAI / "parent.json", OPENAI / "fork.json", max_body_size=10)


# --- capture_command and check_log --------------------------------------------------------------


def test_a_capture_is_checked_and_its_record_is_a_log(tmp_path: Path) -> None:
    record = tmp_path / "run.jsonl"
    captured = capture_command(
        [sys.executable, str(AGENT)], dialect="openai", script=SCRIPT, record=record
    )
    assert (captured.ended, captured.problem, captured.exit_code) == (0, None, 0)
    assert len(captured.records) == 6
    assert len(captured.result.checks) == 3
    again = check_log(record)
    assert (again.exit_code, again.requests, len(again.checks)) == (0, 6, 3)
    assert {r.subject for r in again.reports} == {"run.jsonl"}


def test_a_script_may_be_given_decoded_and_a_silent_command_is_no_verdict() -> None:
    script = orjson.loads(SCRIPT.read_bytes())
    captured = capture_command([sys.executable, "-c", "pass"], dialect="openai", script=script)
    assert captured.ended == 0
    assert captured.problem == "the command never called the fake provider"
    assert captured.exit_code == 3
    assert captured.result.exit_code == 4  # nothing checked: inconclusive


def test_a_timed_out_capture_says_so() -> None:
    captured = capture_command(
        [sys.executable, "-c", "import time; time.sleep(30)"],
        dialect="anthropic",
        script={"rules": []},
        timeout=0.5,
    )
    assert isinstance(captured, Captured)
    assert isinstance(captured.ended, str)
    assert captured.ended.startswith("timed out: the command did not finish within 0.5 s")
    assert captured.problem == captured.ended
    assert captured.exit_code == 3


@pytest.mark.parametrize(
    ("arguments", "sentence"),
    [
        ({"command": []}, "no command given"),
        ({"timeout": 0}, "timeout must be more than 0"),
        ({"dialect": "nope"}, "no fake provider for dialect 'nope'"),
        ({"script": {"rules": 3}}, "must be an array of rules"),
        ({"fork_tag": ""}, "fork_tag must not be empty"),
    ],
)
def test_bad_capture_input_is_one_input_error(arguments: dict[str, object], sentence: str) -> None:
    given: dict[str, object] = {
        "command": [sys.executable, "-c", "pass"],
        "dialect": "openai",
        "script": {"rules": []},
    }
    with pytest.raises(InputError, match=sentence):
        capture_command(**(given | arguments))  # type: ignore[arg-type]


def test_a_log_that_cannot_be_read_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no-such\.jsonl"):
        check_log(tmp_path / "no-such.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(InputError, match=r"bad\.jsonl"):
        check_log(bad)
