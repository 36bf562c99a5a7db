"""serve: a Python Subject on the subject side of the protocol."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

from harness.model import Message, Preset, Text
from harness.protocol import (
    assemble_request,
    encode_line,
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
