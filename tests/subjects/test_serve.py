"""serve: a Python Subject on the subject side of the protocol."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

from harness.model import Message, Preset, Text
from harness.protocol import (
    SAME_SCENARIO,
    assemble_request,
    encode_line,
    same_scenario_request,
    start_request,
    stop_request,
    validate_message,
)
from harness.scenarios import Scenario, scenario_to_json
from harness.subjects import Outcome, ReferenceSubject, serve

SCENARIO = Scenario(
    "s",
    "fork",
    Preset(("sys",)),
    (Message("user", (Text("hi"),)), Message("model", (Text("ok"),))),
    ("go",),
)


def served(*requests: Any, subject: Any = None, raw: bytes = b"") -> tuple[int, list[Any]]:
    stdin = io.BytesIO(raw + b"".join(encode_line(r) for r in requests))
    stdout = io.BytesIO()
    code = serve(subject or ReferenceSubject(), stdin, stdout, version="9")
    return code, [orjson.loads(line) for line in stdout.getvalue().splitlines()]


def test_start_assemble_stop() -> None:
    request = assemble_request(1, "openai", scenario_to_json(SCENARIO))
    code, (hello, reply) = served(start_request(), request, stop_request(), {"cmd": "start"})
    assert code == 0
    assert validate_message("start-reply", hello) == []
    assert hello["implementation"]["name"] == "reference"
    assert hello["implementation"]["language"] == "python"
    assert hello["implementation"]["version"] == "9"
    assert validate_message("assemble-reply", reply) == []
    expected = ReferenceSubject().assemble(SCENARIO, "openai")
    assert reply["parent"].encode() == expected.parent
    assert [c.encode() for c in reply["children"]] == list(expected.children)


def test_another_version_is_refused() -> None:
    _, (reply,) = served(start_request(version=2))
    assert reply["ok"] is False
    assert "protocol version 1" in reply["error"]


def test_an_unreadable_scenario_is_errored_and_serving_goes_on() -> None:
    bad = assemble_request(1, "openai", {"id": "x"})
    good = assemble_request(2, "openai", scenario_to_json(SCENARIO))
    code, (first, second) = served(bad, good)
    assert code == 0
    assert first["status"] == "errored"
    assert "ScenarioFormatError" in first["message"]
    assert second["status"] == "assembled"


def test_a_raising_subject_is_errored(capsys: pytest.CaptureFixture[str]) -> None:
    class Raising(ReferenceSubject):
        def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
            raise KeyError("nope")

    _, (reply,) = served(
        assemble_request(1, "openai", scenario_to_json(SCENARIO)), subject=Raising()
    )
    assert reply == {"seq": 1, "status": "errored", "message": "KeyError: 'nope'"}
    assert "Traceback" in capsys.readouterr().err


def test_blank_lines_and_unknown_commands_are_ignored(capsys: pytest.CaptureFixture[str]) -> None:
    code, replies = served({"cmd": "ping"}, raw=b"\n  \n")
    assert (code, replies) == (0, [])
    assert "ignoring unknown command 'ping'" in capsys.readouterr().err


# --- same-scenario: the last scenario read is kept ----------------------------------------


class Recording(ReferenceSubject):
    """The reference, noting every scenario it was asked to assemble."""

    def __init__(self) -> None:
        self.seen: list[Scenario] = []

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        self.seen.append(scenario)
        return super().assemble(scenario, dialect)


OTHER = Scenario("t", "fork", SCENARIO.preset, SCENARIO.history, ("other",))


def full(seq: int, dialect: str, scenario: Any = SCENARIO) -> dict[str, Any]:
    data = scenario_to_json(scenario) if isinstance(scenario, Scenario) else scenario
    return assemble_request(seq, dialect, data)


def test_serve_declares_same_scenario() -> None:
    _, (hello,) = served(start_request())
    assert hello["features"] == [SAME_SCENARIO]
    assert validate_message("start-reply", hello) == []


def test_a_short_assemble_is_answered_for_the_last_scenario_read_once() -> None:
    recording = Recording()
    requests = [
        full(1, "openai"),
        same_scenario_request(2, "anthropic"),
        same_scenario_request(3, "gemini"),
        full(4, "openai", OTHER),
        same_scenario_request(5, "gemini"),
    ]
    for request in requests:
        assert validate_message("assemble", request) == []
    _, replies = served(*requests, subject=recording)
    expected = [
        full(1, "openai"),
        full(2, "anthropic"),
        full(3, "gemini"),
        full(4, "openai", OTHER),
        full(5, "gemini", OTHER),
    ]
    assert replies == [served(r)[1][0] for r in expected]
    assert all(r["status"] == "assembled" for r in replies)
    first, second, third, fourth, fifth = recording.seen
    assert second is first
    assert third is first
    assert fifth is fourth
    assert fourth is not first
    assert (first, fourth) == (SCENARIO, OTHER)


def test_a_short_assemble_with_no_scenario_before_it_is_errored() -> None:
    code, (reply, after) = served(same_scenario_request(1, "openai"), full(2, "openai"))
    assert code == 0
    assert reply == {
        "seq": 1,
        "status": "errored",
        "message": "same_scenario, but no scenario was sent before it",
    }
    assert after["status"] == "assembled"


def test_a_scenario_that_fails_to_read_is_not_held(capsys: pytest.CaptureFixture[str]) -> None:
    """A short form after it is answered as the full one was, not with the older scenario."""
    recording = Recording()
    code, replies = served(
        full(1, "openai"),
        full(2, "openai", {"id": "x"}),
        same_scenario_request(3, "gemini"),
        full(4, "gemini"),
        same_scenario_request(5, "anthropic"),
        subject=recording,
    )
    assert code == 0
    assert [r["status"] for r in replies] == [
        *("assembled", "errored", "errored", "assembled", "assembled")
    ]
    assert replies[1]["message"].startswith("ScenarioFormatError: ")
    assert "seq 2" in replies[1]["message"]
    assert replies[2]["message"] == replies[1]["message"]
    assert len(recording.seen) == 3
    assert capsys.readouterr().err.count("Traceback") == 1


def test_a_failed_read_as_the_first_scenario_is_not_held_either() -> None:
    _, (first, second) = served(full(1, "openai", {"id": "x"}), same_scenario_request(2, "openai"))
    assert first["status"] == second["status"] == "errored"
    assert second["message"] == first["message"]


def test_a_full_scenario_sent_again_is_read_again() -> None:
    recording = Recording()
    _, replies = served(full(1, "openai"), full(2, "gemini"), subject=recording)
    assert [r["status"] for r in replies] == ["assembled", "assembled"]
    first, second = recording.seen
    assert first == second
    assert first is not second
