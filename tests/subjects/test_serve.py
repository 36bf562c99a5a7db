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
from harness.scenarios import Scenario, ScenarioFormatError, scenario_from_json, scenario_to_json
from harness.subjects import Outcome, ReferenceSubject, serve
from harness.subjects._serve import ScenarioMemo

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


# --- the scenarios kept read ---------------------------------------------------------------


def _json_of(scenario: Scenario) -> bytes:
    return orjson.dumps(scenario_to_json(scenario))


def _with_extra(value: Any, *, first: str = "a") -> Any:
    data = scenario_to_json(SCENARIO)
    extra = {"a": {"v": value}, "b": {}} if first == "a" else {"b": {}, "a": {"v": value}}
    data["preset"]["settings"] = {"extra": extra}
    return orjson.loads(orjson.dumps(data))


def test_a_scenario_read_again_is_the_one_read() -> None:
    memo = ScenarioMemo()
    data = orjson.loads(orjson.dumps(scenario_to_json(SCENARIO)))
    first = memo.read(data, source="seq 1")
    assert memo.read(orjson.loads(orjson.dumps(data)), source="seq 2") is first
    assert first == scenario_from_json(data) == SCENARIO
    assert (len(memo), memo.size) == (1, len(orjson.dumps(data)))


@pytest.mark.parametrize(
    "variants",
    [
        [1, 1.0, True, "1", None, [1], {"x": 1}],  # equal in Python, not in JSON
        [0.0, -0.0, 0, False],
        [1e16, 10000000000000000, 1.0000000000000002],
    ],
)
def test_a_changed_scenario_is_read_anew(variants: list[Any]) -> None:
    memo = ScenarioMemo()
    for _ in range(2):
        for value in variants:
            for first in ("a", "b"):  # key order reaches the model
                data = _with_extra(value, first=first)
                served = memo.read(data, source="s")
                assert _json_of(served) == _json_of(scenario_from_json(data))
                assert _json_of(served) == orjson.dumps(data)
    assert len(memo) == 2 * len(variants)


def test_an_unreadable_scenario_raises_each_time_with_its_source() -> None:
    memo = ScenarioMemo()
    hot = orjson.loads(orjson.dumps(scenario_to_json(SCENARIO)))
    hot["preset"]["settings"] = {"temperature": "hot"}
    for bad in ({"id": "x"}, hot, [], "scenario", None):
        for seq in (1, 2, 3):
            with pytest.raises(ScenarioFormatError) as fresh:
                scenario_from_json(bad, source=f"seq {seq}")
            with pytest.raises(ScenarioFormatError) as read:
                memo.read(bad, source=f"seq {seq}")
            assert str(read.value) == str(fresh.value)
            assert f"seq {seq}" in str(read.value)
    assert (len(memo), memo.size) == (0, 0)


def test_a_scenario_nested_too_deeply_to_encode_is_read_as_it_is() -> None:
    deep: Any = 1
    for _ in range(300):
        deep = [deep]
    data = _with_extra(0)
    data["preset"]["settings"]["extra"]["a"]["v"] = deep
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(data)
    memo = ScenarioMemo()
    assert repr(memo.read(data, source="s")) == repr(scenario_from_json(data))
    assert len(memo) == 0


def test_the_memo_keeps_within_its_bounds_and_reads_the_rest_anew() -> None:
    datas = [_with_extra(i) for i in range(6)]
    sizes = [len(orjson.dumps(d)) for d in datas]
    by_count = ScenarioMemo(max_count=3)
    by_bytes = ScenarioMemo(max_bytes=sum(sizes[:2]) + 1)
    for memo, kept in ((by_count, 3), (by_bytes, 2)):
        for _ in range(3):
            read = [memo.read(d, source="s") for d in datas]
            assert [_json_of(s) for s in read] == [orjson.dumps(d) for d in datas]
            assert (len(memo), memo.size) == (kept, sum(sizes[:kept]))
        again = [memo.read(d, source="s") for d in datas]
        assert [a is r for a, r in zip(again, read, strict=True)] == [True] * kept + [False] * (
            6 - kept
        )
    too_big = ScenarioMemo(max_bytes=sizes[0] - 1)
    too_big.read(datas[0], source="s")
    assert (len(too_big), too_big.size) == (0, 0)


def test_serve_answers_a_scenario_sent_again_as_the_first_time() -> None:
    class Recording(ReferenceSubject):
        def __init__(self) -> None:
            self.seen: list[Scenario] = []

        def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
            self.seen.append(scenario)
            return super().assemble(scenario, dialect)

    datas = [_with_extra(1), _with_extra(1.0), _with_extra(1), {"id": "x"}, _with_extra(1.0)]
    requests = [
        assemble_request(seq, dialect, data)
        for seq, (dialect, data) in enumerate(
            ((d, data) for d in ("openai", "anthropic") for data in datas), 1
        )
    ]
    recording = Recording()
    _, replies = served(*requests, subject=recording)
    alone = [served(r)[1][0] for r in requests]
    assert replies == alone
    assert replies[3]["status"] == replies[8]["status"] == "errored"
    assert "seq 9" in replies[8]["message"]
    first, second, third, fifth = (recording.seen[i] for i in (0, 1, 2, 3))
    assert third is first
    assert fifth is second
    assert first is not second
    assert all(s is first or s is second for s in recording.seen)
