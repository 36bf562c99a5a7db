"""An in-process subject behind the runner's interface: it never raises, and what breaks the
Subject contract becomes a SubjectFailure."""

from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from harness.dialects import all_dialects
from harness.model import Message, Preset, Text
from harness.scenarios import Lifecycle, Scenario
from harness.subjects import (
    InProcessSubject,
    LoadedSubject,
    Outcome,
    ReferenceSubject,
    SubjectFailure,
)
from tests.subjects.exiting_subjects import Ending

SCENARIO = Scenario("s", "fork", Preset(), (Message("user", (Text("hi"),)),), ("go",))


@dataclass
class Scripted:
    """A subject whose assemble returns (or raises) what it is given."""

    result: Any
    closed: list[bool] = field(default_factory=list)
    name: str = "scripted"
    dialects: tuple[str, ...] = ("openai",)
    lifecycles: tuple[Lifecycle, ...] = ("one-shot",)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result  # type: ignore[no-any-return]

    def close(self) -> None:
        self.closed.append(True)


def test_it_delegates_and_is_a_loaded_subject() -> None:
    subject = InProcessSubject(ReferenceSubject())
    assert isinstance(subject, LoadedSubject)
    assert subject.name == "reference"
    assert subject.dialects == tuple(all_dialects())
    assert subject.lifecycles == ("one-shot", "continuable", "spawn")
    assert subject.assemble(SCENARIO, "openai") == ReferenceSubject().assemble(SCENARIO, "openai")


def test_an_exception_is_a_crash_with_the_traceback() -> None:
    outcome = InProcessSubject(Scripted(ZeroDivisionError("division by zero"))).assemble(
        SCENARIO, "openai"
    )
    assert isinstance(outcome, SubjectFailure)
    assert outcome.kind == "crash"
    assert outcome.detail == "assemble raised ZeroDivisionError: division by zero"
    assert "ZeroDivisionError" in outcome.stderr_tail


def test_what_is_no_outcome_of_bytes_is_a_protocol_failure() -> None:
    cases = {
        "assemble returned dict, not an Outcome": {"status": "assembled"},
        "assemble returned a body of type str, not bytes": Outcome("assembled", children=("{}",)),  # type: ignore[arg-type]
        "assemble returned an Outcome with status 'done'": Outcome("done"),  # type: ignore[arg-type]
    }
    for detail, result in cases.items():
        outcome = InProcessSubject(Scripted(result)).assemble(SCENARIO, "openai")
        assert isinstance(outcome, SubjectFailure)
        assert (outcome.kind, outcome.detail) == ("protocol", detail)


def test_close_closes_the_wrapped_subject_and_start_does_nothing() -> None:
    inner = Scripted(Outcome("skipped", message="no"))
    with InProcessSubject(inner) as subject:
        subject.start()
        assert subject.assemble(SCENARIO, "openai") == Outcome("skipped", message="no")
    assert inner.closed == [True]
    InProcessSubject(ReferenceSubject()).close()  # nothing to close


@pytest.mark.parametrize(
    ("raised", "detail"),
    [
        (SystemExit(0), "assemble raised SystemExit(0)"),
        (SystemExit(), "assemble raised SystemExit(None)"),
        (SystemExit("bye"), "assemble raised SystemExit('bye')"),
        (GeneratorExit(), "assemble raised GeneratorExit"),
        (KeyboardInterrupt(), "assemble raised KeyboardInterrupt"),
        (BaseException("odd"), "assemble raised BaseException: odd"),
    ],
)
def test_what_is_no_exception_is_a_crash_too(raised: BaseException, detail: str) -> None:
    # sys.exit() in a subject would set the harness's exit code and print nothing; a
    # KeyboardInterrupt with no SIGINT received is the subject's own, not the user's
    outcome = InProcessSubject(Scripted(raised)).assemble(SCENARIO, "openai")
    assert isinstance(outcome, SubjectFailure)
    assert (outcome.kind, outcome.detail) == ("crash", detail)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_the_users_ctrl_c_still_stops_the_run() -> None:
    def ctrl_c() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)

    subject = InProcessSubject(Ending(ctrl_c))
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        subject.assemble(SCENARIO, "openai")
    assert time.monotonic() - started < 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_close_that_exits_does_not_end_the_harness() -> None:
    class Closing(Scripted):
        def close(self) -> None:
            sys.exit(3)

    InProcessSubject(Closing(Outcome("skipped"))).close()


@pytest.mark.parametrize("which", ["name", "dialects", "lifecycles"])
def test_a_property_that_exits_is_a_value_error_naming_it(which: str) -> None:
    from tests.subjects.exiting_subjects import _ExitingProperty

    with pytest.raises(ValueError, match=r"raised SystemExit\(0\)") as raised:
        InProcessSubject(_ExitingProperty(which))  # type: ignore[arg-type]
    assert ("name" if which == "name" else f"its {which}") in str(raised.value)
