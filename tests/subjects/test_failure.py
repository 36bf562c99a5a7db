"""A subject's misbehaviour as an errored outcome that says so."""

from __future__ import annotations

from harness.subjects import Outcome, SubjectFailure, SubjectStartError, is_subject_failure


def test_a_failure_is_errored_and_names_scenario_kind_and_exit_code() -> None:
    failure = SubjectFailure.of("crash", "fork-1", "exited during seq 3", exit_code=9)
    assert failure.status == "errored"
    assert (
        failure.message == "subject crashed in scenario 'fork-1': exited during seq 3 (exit code 9)"
    )
    assert (failure.kind, failure.scenario, failure.exit_code) == ("crash", "fork-1", 9)
    assert isinstance(failure, Outcome)
    assert failure.children == ()


def test_the_report_adds_the_stderr_tail() -> None:
    failure = SubjectFailure.of("hang", "s", "no reply", stderr_tail="one\ntwo\n")
    assert failure.report().splitlines() == [
        "subject hung in scenario 's': no reply",
        "last lines of the subject's stderr:",
        "  | one",
        "  | two",
    ]
    assert (
        SubjectFailure.of("protocol", "s", "bad").report() == "protocol error in scenario 's': bad"
    )


def test_only_a_subject_failure_is_one() -> None:
    assert is_subject_failure(SubjectFailure.of("start", "s", "x"))
    assert not is_subject_failure(Outcome("errored", message="the subject said so"))


def test_a_start_error_keeps_exit_code_and_stderr() -> None:
    error = SubjectStartError("x exited during start", exit_code=4, stderr_tail="why")
    assert str(error) == "x exited during start (exit code 4)"
    assert (error.detail, error.exit_code, error.stderr_tail) == ("x exited during start", 4, "why")
