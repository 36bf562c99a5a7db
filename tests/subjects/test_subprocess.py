"""The subprocess runner against fake subjects that crash, hang, write garbage, answer the
wrong seq, are slow or write huge output: each failure is reported for its scenario, the
subject is restarted and the run goes on; nothing is left running."""

from __future__ import annotations

import json
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.cli import run as cli
from harness.model import Message, Preset, Text
from harness.protocol import ProtocolError
from harness.scenarios import Scenario
from harness.subjects import (
    Outcome,
    SubjectFailure,
    SubjectStartError,
    SubprocessOptions,
    SubprocessSubject,
    is_subject_failure,
)

FAKES = Path(__file__).resolve().parent / "fakes"
HISTORY = (Message("user", (Text("hi"),)),)


def scenario(scenario_id: str) -> Scenario:
    return Scenario(scenario_id, "fork", Preset(), HISTORY, directives=("go",))


def fake(name: str, *args: str, **options: object) -> SubprocessSubject:
    argv = [sys.executable, str(FAKES / f"{name}.py"), *args]
    return SubprocessSubject(argv, SubprocessOptions(**options))  # type: ignore[arg-type]


class Run:
    """Scenarios through one subject, remembering every process it started."""

    def __init__(self, subject: SubprocessSubject) -> None:
        self.subject = subject
        self.pids: set[int] = set()

    def __call__(self, *ids: str) -> list[Outcome]:
        outcomes = []
        for scenario_id in ids:
            outcomes.append(self.assemble(scenario(scenario_id), "openai"))
        return outcomes

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        """``subject.assemble``, noting the process it ran in."""
        outcome = self.subject.assemble(scenario, dialect)
        if self.subject.pid is not None:
            self.pids.add(self.subject.pid)
        return outcome


Runner = Callable[[SubprocessSubject], Run]


@pytest.fixture
def run() -> Iterator[Runner]:
    """Yields a Run to bind; afterwards every process it started must be reaped and no
    thread may have been left behind."""
    threads = threading.active_count()
    holder: list[Run] = []

    def bind(subject: SubprocessSubject) -> Run:
        holder.append(Run(subject))
        return holder[-1]

    yield bind
    for r in holder:
        r.subject.close()
        for pid in r.pids:
            with pytest.raises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)  # reaped: no zombie, not running
    assert threading.active_count() == threads


def failure(outcome: Outcome) -> SubjectFailure:
    assert is_subject_failure(outcome), outcome
    assert isinstance(outcome, SubjectFailure)
    assert outcome.status == "errored"
    return outcome


def test_a_crash_is_reported_with_exit_code_and_stderr_and_the_run_goes_on(run: Runner) -> None:
    r = run(fake("crash"))
    ok1, bad, ok2 = r("ok1", "bad", "ok2")
    assert ok1.status == ok2.status == "assembled"
    crash = failure(bad)
    assert crash.kind == "crash"
    assert crash.exit_code == 7
    assert crash.scenario == "bad"
    assert "subject crashed in scenario 'bad': exited in the middle of a line during seq 2" in (
        crash.message or ""
    )
    assert crash.stderr_tail == "fake: giving up on seq 2"
    assert "  | fake: giving up on seq 2" in crash.report()
    assert r.subject.restarts == 1
    assert len(r.pids) == 2


def test_a_closed_stdout_is_a_crash_at_once_that_stalls_the_subject(run: Runner) -> None:
    r = run(fake("closer", timeout=30))
    began = time.monotonic()
    ok1, bad, ok2 = r("ok1", "bad", "ok2")
    assert time.monotonic() - began < 15  # not the 30 s timeout: taken at its word
    assert ok1.status == ok2.status == "assembled"
    crash = failure(bad)
    assert (crash.kind, crash.stalled) == ("crash", True)
    assert "closed its stdout during seq 2 but kept running" in (crash.message or "")
    assert r.subject.restarts == 1
    (ok,) = r("ok3")
    assert not isinstance(ok, SubjectFailure)


def test_an_exit_is_a_crash_that_does_not_stall(run: Runner) -> None:
    r = run(fake("crash"))
    (bad,) = r("bad")
    assert (failure(bad).kind, failure(bad).stalled) == ("crash", False)


def test_a_reply_that_cannot_be_held_in_memory_is_a_protocol_error(
    run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stdout buffer cannot grow (as under a memory limit): the scenario fails, no
    traceback, and the subject is restarted for the next one."""
    import errno
    import mmap

    from harness.subjects import _process

    real = _process._anonymous_map

    def refused(size: int) -> mmap.mmap:
        if size > _process._CHUNK:
            raise OSError(errno.ENOMEM, "Cannot allocate memory")
        return real(size)

    monkeypatch.setattr(_process, "_anonymous_map", refused)
    r = run(fake("huge"))
    bad, ok = r("bad-endless", "ok")
    problem = failure(bad)
    assert problem.kind == "protocol"
    assert "reply to seq 1 could not be held in memory: out of memory after" in problem.detail
    assert ok.status == "assembled"
    assert r.subject.restarts == 1


def test_a_crash_after_a_flood_of_stderr_keeps_only_its_tail(run: Runner) -> None:
    r = run(fake("crash", stderr_limit=10_000))
    (bad,) = r("bad-noisy")
    tail = failure(bad).stderr_tail.splitlines()
    assert tail[-1] == "fake: giving up on seq 1"
    assert tail[:-1] == ["noise"] * 19


def test_a_hang_is_reported_after_the_timeout_and_the_run_goes_on(run: Runner) -> None:
    r = run(fake("hang", timeout=0.5))
    ok1, bad, ok2 = r("ok1", "bad", "ok2")
    hang = failure(bad)
    assert hang.kind == "hang"
    assert "no reply to seq 2 within 0.5 s" in (hang.message or "")
    assert hang.stderr_tail == "fake: thinking very hard"
    assert ok1.status == ok2.status == "assembled"


GARBAGE = {
    "bad-text": "the line is not JSON",
    "bad-bytes": "the line is not UTF-8 (byte 0xff at 0)",
    "bad-array": "the line is an array, not a JSON object",
    "bad-no-seq": "the reply has no seq",
    "bad-status": 'status must be one of assembled, rejected, skipped, errored, not "done"',
    "bad-missing": "the assembled reply lacks children",
    "bad-unknown-key": "the skipped reply has unknown key 'chidren'",
    "bad-body-object": "parent must be a string holding the body's JSON text, not an object",
    "bad-body-surrogate": "the line is not JSON (no low surrogate in string",
    "bad-start-reply": "the reply to assemble looks like a reply to start",
    "bad-echo": 'the reply has cmd "assemble", as a request would',
    "bad-log": "the line is not JSON",
}


def test_garbage_is_a_protocol_error_naming_scenario_and_problem(run: Runner) -> None:
    r = run(fake("garbage"))
    for scenario_id, problem in GARBAGE.items():
        bad, ok = r(scenario_id, "ok")
        error = failure(bad)
        assert error.kind == "protocol"
        assert (error.message or "").startswith(f"protocol error in scenario {scenario_id!r}: ")
        assert problem in (error.message or ""), error.message
        assert ok.status == "assembled"
    assert r.subject.restarts == len(GARBAGE)


def test_the_offending_line_is_quoted(run: Runner) -> None:
    r = run(fake("garbage"))
    (bad,) = r("bad-log")
    assert "got 'debug: assembling now'" in (bad.message or "")


def test_the_wrong_seq_is_a_protocol_error(run: Runner) -> None:
    r = run(fake("wrong_seq"))
    ok1, bad, ok2 = r("ok1", "bad", "ok2")
    assert "the reply answers seq 3 where seq 2 was asked" in (failure(bad).message or "")
    assert ok1.status == ok2.status == "assembled"


def test_a_slow_subject_within_the_timeout_is_fine(run: Runner) -> None:
    r = run(fake("slow", timeout=3))
    outcomes = r("bad-1", "bad-2")
    assert [o.status for o in outcomes] == ["assembled", "assembled"]
    assert r.subject.restarts == 0


def test_a_line_over_the_limit_is_a_protocol_error(run: Runner) -> None:
    r = run(fake("huge", max_line_bytes=1024 * 1024))
    ok1, bad, ok2 = r("ok1", "bad-endless", "ok2")
    assert "reply to seq 2 is over the 1,048,576-byte line limit" in (failure(bad).message or "")
    assert ok1.status == ok2.status == "assembled"


def test_a_huge_reply_within_the_limit_arrives_whole(run: Runner) -> None:
    r = run(fake("huge"))
    (big,) = r("bad-big")
    assert big.status == "assembled"
    assert big.parent is not None
    assert len(big.parent) > 2 * 1024 * 1024
    assert big.children == (big.parent,)


@pytest.mark.parametrize(
    ("how", "problem"),
    [
        ("exit", "bad_start.py exit exited during start (exit code 4)"),
        ("silent", "did not answer start within 0.5 s"),
        ("garbage", "bad reply to start: the line is not JSON"),
        ("version", "the subject speaks protocol version 2; this harness speaks version 1"),
        ("refuse", "the subject refused to start: this subject speaks version 2"),
    ],
)
def test_a_failed_start_is_an_error_and_later_scenarios_are_not_run(
    run: Runner,
    how: str,
    problem: str,
) -> None:
    r = run(fake("bad_start", how, start_timeout=0.5))
    with pytest.raises(SubjectStartError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        r.subject.start()
    first, second = r("a", "b")
    assert failure(first).kind == "start"
    assert problem in (first.message or "")
    assert "not run: the subject could not be started earlier" in (second.message or "")
    if how == "exit":
        assert failure(first).exit_code == 4
        assert "fake: cannot find my configuration" in failure(first).report()


def test_the_subject_describes_itself_in_its_start_reply(run: Runner) -> None:
    r = run(fake("slow"))
    subject = r.subject
    assert subject.pid is None
    assert subject.name == "fake"  # starts it
    assert subject.dialects == ("openai",)
    assert subject.lifecycles == ("one-shot",)
    assert subject.implementation.language == "python"
    assert subject.pid is not None
    r.pids.add(subject.pid)
    assert "slow.py" in repr(subject)


def test_close_stops_the_process_and_a_later_use_starts_another(run: Runner) -> None:
    r = run(fake("crash"))
    with r.subject as subject:
        first = subject.pid
        assert first is not None
        r.pids.add(first)
    assert subject.pid is None
    subject.close()  # idempotent
    (ok,) = r("ok")
    assert ok.status == "assembled"
    assert subject.pid not in (None, first)


def test_validation_checks_replies_and_the_harness_own_requests(run: Runner) -> None:
    r = run(fake("garbage", validate=True))
    (bad,) = r("bad-unknown-key")
    assert "breaks the assemble-reply schema" in (bad.message or "")
    assert r("ok")[0].status == "assembled"
    with pytest.raises(ProtocolError, match="the harness's request breaks the assemble schema"):
        r("not/an/id")  # a Scenario may have it; the scenario schema refuses it


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"timeout": 0}, "timeout must be more than 0 seconds"),
        ({"stop_timeout": -1}, "stop_timeout must be more than 0 seconds"),
        ({"timeout": float("inf")}, "timeout must be at most 86400 seconds"),
        ({"start_timeout": float("nan")}, "start_timeout must be a number of seconds"),
        ({"max_line_bytes": 10}, "max_line_bytes must be at least 1024"),
    ],
)
def test_options_are_checked(options: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        SubprocessOptions(**options)  # type: ignore[arg-type]


def test_a_command_is_a_sequence_of_arguments() -> None:
    with pytest.raises(ValueError, match="non-empty sequence"):
        SubprocessSubject([])
    with pytest.raises(ValueError, match="non-empty sequence"):
        SubprocessSubject("python3 x.py")


# --- a second reply, a start's stderr ---------------------------------------------------------


def test_a_second_reply_is_a_protocol_error_naming_its_scenario(run: Runner) -> None:
    # caught with the reply when it arrives with it, else before or as the next reply
    r = run(fake("twice"))
    ok1, bad, ok2, ok3 = r("ok1", "bad", "ok2", "ok3")
    assert ok1.status == ok3.status == "assembled"
    (f,) = [failure(o) for o in (bad, ok2) if is_subject_failure(o)]
    assert f.kind == "protocol"
    assert f.detail.startswith(
        (
            "a second line came after the reply to seq 2: got '{",  # arrived with the reply
            "before seq 3, after the reply to seq 2 (scenario 'bad') another line arrived",
            "reply to seq 3: the reply answers seq 2 where seq 3 was asked",  # in between
        )
    )
    assert r.subject.restarts == 1
    assert r.subject.finish() == ()


def test_a_late_second_reply_is_caught_before_the_next_request(run: Runner) -> None:
    r = run(fake("twice"))
    (bad,) = r("bad-late")
    assert bad.status == "assembled"  # the first reply was fine
    time.sleep(0.6)
    (ok,) = r("ok")
    f = failure(ok)
    assert f.kind == "protocol"
    assert "before seq 2, after the reply to seq 1 (scenario 'bad-late') another line" in f.detail
    assert '"seq": 1' in f.detail  # the offending line is quoted


def test_a_second_reply_to_the_last_request_is_caught_when_it_stops(run: Runner) -> None:
    r = run(fake("twice"))
    ok, bad = r("ok", "bad-late")
    assert ok.status == bad.status == "assembled"
    (f,) = r.subject.finish()
    assert (f.kind, f.scenario) == ("protocol", "bad-late")
    assert "after the reply to seq 2 (scenario 'bad-late'), before it exited" in f.detail
    assert r.subject.pid is None
    assert r.subject.finish() == ()  # nothing runs any more


def test_a_start_failure_keeps_the_stderr_escaped(run: Runner) -> None:
    r = run(fake("bad_start", "ansi"))
    with pytest.raises(SubjectStartError) as caught:
        r.subject.start()
    report = caught.value.report()
    assert "exited during start (exit code 5)" in report
    assert "  | \\x1b[2J\\x1b]0;owned\\x07fake: \\x1b[31mno config\\x1b[0m" in report
    assert not any(c in report for c in "\x1b\x07\r")


# --- a body whose text is no JSON object: rule well-formed's, not a protocol error ------------

BAD_BODIES = {
    "repr_body": "children[0] is not JSON: unexpected character, expected a string key: line 1 "
    "column 2 (char 1)",
    "array_body": "children[0] is not a request of the openai dialect: the body is an array, "
    "not a JSON object",
}
ONESHOT = Path(__file__).resolve().parents[2] / "fixtures" / "oneshot.json"


@pytest.mark.parametrize("name", BAD_BODIES)
def test_a_body_that_is_no_json_object_is_handed_on_as_sent(run: Runner, name: str) -> None:
    r = run(fake(name))
    (outcome,) = r("plain")
    assert not is_subject_failure(outcome)
    assert outcome.status == "assembled"
    assert outcome.parent == b'{"messages":[{"role":"user","content":"hi"}]}'
    (child,) = outcome.children
    assert child.startswith(b"{'messages'" if name == "repr_body" else b'[{"role"')
    assert r.subject.restarts == 0


@pytest.mark.parametrize("validate", [False, True], ids=["plain", "validate-protocol"])
@pytest.mark.parametrize("name", BAD_BODIES)
def test_a_check_of_such_a_subject_fails_well_formed_saying_where_and_exits_1(
    capsys: pytest.CaptureFixture[str], name: str, validate: bool
) -> None:
    subject = "cmd:" + shlex.join([sys.executable, str(FAKES / f"{name}.py")])
    argv = ["check", "--subject", subject, "--fixtures", str(ONESHOT), "--examples", "0"]
    argv += ["--dialect", "openai", "--json"] + (["--validate-protocol"] if validate else [])
    code = cli([*argv])
    captured = capsys.readouterr()
    assert code == 1, captured.out + captured.err
    assert "Traceback" not in captured.err
    document = json.loads(captured.out)
    assert document["subject_failures"] == []
    assert document["reports"]
    for report in document["reports"]:
        (failed,) = [f for f in report["findings"] if f["status"] == "fail"]
        assert (failed["rule"], failed["message"]) == ("well-formed", BAD_BODIES[name])
        assert failed["evidence"]["body"] == "children[0]"
        others = {f["status"] for f in report["findings"] if f["rule"] != "well-formed"}
        assert others == {"not-applicable"}
    doc = " ".join((ONESHOT.parents[1] / "docs" / "protocol.md").read_text().split())
    assert f"`{BAD_BODIES[name]}`" in doc  # the page quotes what a check says


# --- same-scenario ---------------------------------------------------------------------------


def recorder(log: Path, *args: str, **options: object) -> SubprocessSubject:
    return fake("recorder", str(log), *args, **options)


def sent(log: Path) -> list[tuple[int, str, str]]:
    """(pid, "full" or "short", dialect) of every assemble the recorder got, in order."""
    out = []
    for line in log.read_text().splitlines():
        noted = json.loads(line)
        request = noted["request"]
        if request["cmd"] == "assemble":
            form = "full" if "scenario" in request else "short"
            assert request.get("same_scenario", True) is True
            assert ("scenario" in request) != ("same_scenario" in request)
            out.append((noted["pid"], form, request["dialect"]))
    return out


def answered_for(outcome: Outcome) -> str:
    """The scenario id the recorder says it assembled for."""
    assert outcome.status == "assembled", outcome
    assert outcome.parent is not None
    return str(json.loads(outcome.parent)["messages"][0]["content"])


DIALECTS = ("openai", "gemini", "anthropic")


def test_a_declaring_subject_gets_a_scenario_again_as_a_short_assemble(
    run: Runner, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    r = run(recorder(log, "--features", "same-scenario"))
    first, second = scenario("first"), scenario("second")
    plan = [(first, d) for d in DIALECTS] + [(second, "openai"), (scenario("second"), "gemini")]
    got = [answered_for(r.assemble(s, d)) for s, d in plan]
    assert got == ["first", "first", "first", "second", "second"]
    assert r.subject.implementation.features == ("same-scenario",)
    (pid,) = r.pids
    forms = ["full", "short", "short", "full", "full"]  # an equal scenario is another one
    assert sent(log) == [(pid, f, d) for f, (_, d) in zip(forms, plan, strict=True)]
    raw = [json.loads(line)["request"] for line in log.read_text().splitlines()]
    assert raw[2] == {"cmd": "assemble", "seq": 2, "dialect": "gemini", "same_scenario": True}


def test_the_first_assemble_after_a_restart_is_full(run: Runner, tmp_path: Path) -> None:
    log = tmp_path / "log"
    r = run(recorder(log, "--features", "same-scenario", "--crash-at", "2"))
    s = scenario("s")
    outcomes = []
    for dialect in (*DIALECTS, "openai-responses"):
        outcomes.append(r.assemble(s, dialect))
    assert answered_for(outcomes[0]) == answered_for(outcomes[2]) == "s"
    assert failure(outcomes[1]).kind == failure(outcomes[3]).kind == "crash"
    assert len(r.pids) == 2
    forms = [(form, dialect) for _, form, dialect in sent(log)]
    assert forms == [
        ("full", "openai"),
        ("short", "gemini"),
        ("full", "anthropic"),
        ("short", "openai-responses"),
    ]
    assert len({pid for pid, _, _ in sent(log)}) == 2


def test_after_close_the_next_process_gets_the_scenario_in_full(
    run: Runner, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    r = run(recorder(log, "--features", "same-scenario"))
    s = scenario("s")
    r.assemble(s, "openai")
    r.subject.close()
    assert answered_for(r.assemble(s, "gemini")) == "s"
    assert len(r.pids) == 2
    assert [form for _, form, _ in sent(log)] == ["full", "full"]


@pytest.mark.parametrize("features", [(), ("--features", "other-thing,x-later")])
def test_a_subject_without_the_feature_always_gets_the_scenario_in_full(
    run: Runner, tmp_path: Path, features: tuple[str, ...]
) -> None:
    log = tmp_path / "log"
    r = run(recorder(log, *features))
    s = scenario("s")
    assert [answered_for(r.assemble(s, d)) for d in DIALECTS] == ["s"] * 3
    assert [form for _, form, _ in sent(log)] == ["full"] * 3
    assert r.subject.implementation.features == (("other-thing", "x-later") if features else ())


def test_validation_checks_the_short_assemble_too(run: Runner, tmp_path: Path) -> None:
    """And a request the harness refuses to send leaves the process's scenario as it was."""
    log = tmp_path / "log"
    r = run(recorder(log, "--features", "same-scenario", validate=True))
    s = scenario("s")
    assert answered_for(r.assemble(s, "openai")) == "s"
    with pytest.raises(ProtocolError, match="the harness's request breaks the assemble schema"):
        r.subject.assemble(scenario("not/an/id"), "openai")
    assert answered_for(r.subject.assemble(s, "gemini")) == "s"
    with pytest.raises(ProtocolError, match="the harness's request breaks the assemble schema"):
        r.subject.assemble(s, "Not A Dialect")  # the short form is checked as well
    assert [form for _, form, _ in sent(log)] == ["full", "short"]


def test_validation_sends_the_same_bytes_as_without(tmp_path: Path, run: Runner) -> None:
    lines = []
    for validate in (False, True):
        log = tmp_path / f"log-{validate}"
        r = run(recorder(log, "--features", "same-scenario", validate=validate))
        s = scenario("s")
        for dialect in DIALECTS:
            assert answered_for(r.assemble(s, dialect)) == "s"
        r.subject.close()
        lines.append([json.loads(line)["request"] for line in log.read_text().splitlines()])
    assert lines[0] == lines[1]
