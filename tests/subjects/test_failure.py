"""A subject's misbehaviour as an errored outcome that says so."""

from __future__ import annotations

from harness.subjects import (
    Outcome,
    SubjectFailure,
    SubjectStartError,
    is_subject_failure,
    printable,
)


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


def test_control_characters_are_escaped_in_details_and_stderr() -> None:
    # a subject's stderr or message must not drive the terminal that shows the report
    nasty = "red \x1b[31mtext\x1b[0m\r bell\x07 csi\x9b nul\x00\tand a tab\n"
    assert printable(nasty) == (
        "red \\x1b[31mtext\\x1b[0m\\x0d bell\\x07 csi\\x9b nul\\x00\tand a tab\n"
    )
    failure = SubjectFailure.of("crash", "s", "raised \x1b]0;title\x07", stderr_tail=nasty)
    start = SubjectStartError("exited \x1b[2J", exit_code=1, stderr_tail=nasty)
    for text in (failure.report(), start.report(), str(start)):
        assert not any(c in text for c in "\x1b\x07\r")


def test_a_start_error_reports_the_stderr_tail() -> None:
    error = SubjectStartError(
        "node subject.js exited during start", exit_code=1, stderr_tail="Error: no config\n"
    )
    assert error.report() == (
        "node subject.js exited during start (exit code 1)\n"
        "last lines of the subject's stderr:\n  | Error: no config"
    )
    assert SubjectStartError("silent").report() == "silent"
