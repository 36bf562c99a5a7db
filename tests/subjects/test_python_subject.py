"""The Python example subject (examples/python-subject/subject.py): the reference over the
protocol answers byte for byte what the reference answers in process."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.assemblers import DEFAULT_WORDING
from harness.dialects import all_dialects
from harness.model import FunctionCall, FunctionResponse, Message, Preset, Text, Tool, freeze
from harness.protocol import SAME_SCENARIO, encode_line
from harness.scenarios import Continuation, Scenario
from harness.subjects import ReferenceSubject, SubprocessOptions, SubprocessSubject, _subprocess

SUBJECT_PY = Path(__file__).resolve().parents[2] / "examples" / "python-subject" / "subject.py"
PRESET = Preset(("sys",), (Tool("agent", "Fork.", freeze({"type": "object"})),))
CALL = FunctionCall("agent", freeze({"d": "x"}), id="c1")
HISTORY = (
    Message("user", (Text("hi"),)),
    Message("model", (Text("ok"),)),
    Message("user", (Text("go"),)),
    Message("model", (CALL,)),
)
SCENARIOS = (
    Scenario("fork", "fork", PRESET, HISTORY, ("look",)),
    Scenario("siblings", "siblings", PRESET, HISTORY[:3], ("a", "b")),
    Scenario("cont", "continuable", PRESET, HISTORY[:2], continuation=Continuation("do", "p1")),
    Scenario("spawn", "spawn", PRESET, HISTORY, prompt="Find it.", answer="42"),
    Scenario("spawn-skipped", "spawn", PRESET, HISTORY[:2], prompt="Find it."),
    Scenario(
        "rejected",
        "fork",
        PRESET,
        (
            Message("user", (Text(DEFAULT_WORDING.child_message("look")),)),
            *HISTORY[1:],
            Message("user", (FunctionResponse("agent", "r", id="c1"),)),
            HISTORY[3],
        ),
        ("x",),
    ),
)


@pytest.fixture(scope="module")
def python_subject() -> Iterator[SubprocessSubject]:
    with SubprocessSubject(
        [sys.executable, str(SUBJECT_PY)], SubprocessOptions(validate=True)
    ) as s:
        yield s


def test_it_names_itself_as_the_reference(python_subject: SubprocessSubject) -> None:
    assert python_subject.name == "reference"
    assert python_subject.implementation.language == "python"
    assert python_subject.lifecycles == ("one-shot", "continuable", "spawn")


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "openai"])
def test_it_answers_exactly_as_the_reference_in_process(
    python_subject: SubprocessSubject, dialect: str
) -> None:
    for scenario in SCENARIOS:
        assert python_subject.assemble(scenario, dialect) == ReferenceSubject().assemble(
            scenario, dialect
        ), scenario.id


def test_it_declares_same_scenario(python_subject: SubprocessSubject) -> None:
    assert python_subject.implementation.features == (SAME_SCENARIO,)


def test_each_scenario_in_every_dialect_in_turn_is_answered_as_in_process(
    python_subject: SubprocessSubject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order of a check: all but a scenario's first request go as short assembles."""
    sent: list[dict[str, Any]] = []

    def noted(message: dict[str, Any]) -> bytes:
        sent.append(message)
        return encode_line(message)

    monkeypatch.setattr(_subprocess, "encode_line", noted)
    restarts = python_subject.restarts
    dialects = tuple(all_dialects())
    for scenario in SCENARIOS:
        for dialect in dialects:
            outcome = python_subject.assemble(scenario, dialect)
            assert outcome == ReferenceSubject().assemble(scenario, dialect), scenario.id
    assert python_subject.restarts == restarts
    forms = ["scenario" in m for m in sent if m["cmd"] == "assemble"]
    assert forms == [True, False, False, False] * len(SCENARIOS)
