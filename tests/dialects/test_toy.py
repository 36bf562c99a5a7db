"""A dialect added from outside the harness, as docs/extending.md walks through: a toy wire
format of its own (reading, rendering, prefix segments, facts and the capture side),
registered from this module alone, then run through ``diff``, ``check`` with the reference
subject, and ``capture`` of a small stdlib HTTP program speaking it.

The toy body: ``{"model", "temperature", "system": [text, ...], "tools": [{"name",
"about", "input"}], "turns": [{"role": "user" | "bot" | "note", "parts": [...]}]}``, a part
being ``{"text": ...}``, ``{"call": {"id", "name", "args"}}`` or ``{"result": {"id",
"name", "value", "error"}}``. Its cache order is system, tools, turns; it has no markers.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest

from harness.cli import run as cli
from harness.dialects import (
    FAKE_MODEL,
    Dialect,
    DialectError,
    Facts,
    Link,
    Route,
    Segment,
    Stream,
    Turn,
    Wire,
    all_dialects,
    get_dialect,
    register,
    unregister,
)
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Json,
    Message,
    Opaque,
    Part,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    Tool,
    dumps,
    freeze,
    json_kind,
    thaw,
)

NAME = "toy"
ROLES: dict[str, Any] = {"user": "user", "bot": "model", "note": "system"}
WIRE_ROLES = {neutral: wire for wire, neutral in ROLES.items()}

FACTS = Facts(
    name=NAME,
    title="Toy chat",
    provider="Toy",
    segments={"system": "system", "tools": "tools", "turns": "history"},
    cache_keys={"model": "request"},
    links=(Link("request", "https://example.org/toy-chat-api", "2026-12-06"),),
)


class ToyWire(Wire):
    """The fake toy provider: ``POST /toy/chat`` answers ``{"turn": {...}}``."""

    dialect = NAME
    base_path = "/toy"
    environment: ClassVar[Mapping[str, str]] = {
        "TOY_BASE_URL": "{base_url}",
        "TOY_API_KEY": "{api_key}",
    }

    def route(self, method: str, path: str, query: Mapping[str, str]) -> Route | None:
        if method == "POST" and path == "/toy/chat":
            return Route("generate", stream=False)
        if method == "GET" and path == "/toy/models":
            return Route("models")
        return None

    def model_of(self, route: Route, body: Mapping[str, Any]) -> str:
        model = body.get("model")
        return model if isinstance(model, str) and model else FAKE_MODEL

    def message(self, turn: Turn) -> bytes:
        parts: list[Any] = [] if turn.reply.text is None else [{"text": turn.reply.text}]
        for i, call in enumerate(turn.reply.calls):
            spec = {"id": self.call_id(turn.nth, i), "name": call.name, "args": thaw(call.args)}
            parts.append({"call": spec})
        return orjson.dumps({"turn": {"role": "bot", "parts": parts}})

    def stream(self, turn: Turn, route: Route) -> Stream:
        return Stream("application/json", iter([self.message(turn)]))

    def error(self, status: int, message: str) -> bytes:
        return orjson.dumps({"error": message})

    def call_id(self, nth: int, index: int) -> str:
        return f"toy-{nth}-{index}"

    def models(self, route: Route) -> bytes:
        return orjson.dumps({"models": [FAKE_MODEL]})


class ToyDialect(Dialect):
    """The toy wire format: every part it has no form for is sent as text."""

    facts = FACTS
    wire = ToyWire()

    def detect(self, body: Mapping[str, Any]) -> int:
        return 3 if isinstance(body, Mapping) and isinstance(body.get("turns"), list) else 0

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        out = []
        if "system" in body:
            out.append(Segment("system", _strings(body, "system")))
        out += [Segment(f"tools[{i}]", _tool(t, i)) for i, t in enumerate(_list(body, "tools"))]
        out += [Segment(f"turns[{k}]", _turn(t, k)) for k, t in enumerate(_list(body, "turns"))]
        return tuple(out)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return {key: body[key] for key in ("model", "temperature") if key in body}

    def to_request(self, body: Mapping[str, Any]) -> Request:
        self.segments(body)
        tools = tuple(
            Tool(t["name"], t.get("about"), freeze(t.get("input"))) for t in _list(body, "tools")
        )
        settings = Settings(model=body.get("model"), temperature=body.get("temperature"))
        preset = Preset(tuple(_strings(body, "system")), tools, settings)
        history = tuple(_message(turn, k) for k, turn in enumerate(_list(body, "turns")))
        return Request(preset, history)

    def render(self, request: Request) -> bytes:
        preset, settings = request.preset, request.preset.settings
        body: dict[str, Any] = {} if settings.model is None else {"model": settings.model}
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        if preset.system:
            body["system"] = list(preset.system)
        if preset.tools:
            body["tools"] = [_render_tool(tool) for tool in preset.tools]
        body["turns"] = [_render_turn(message) for message in request.history]
        return dumps(body)


def _list(body: Mapping[str, Any], key: str) -> list[Any]:
    value = body.get(key, [])
    if not isinstance(value, list):
        raise DialectError(f"must be an array, not {json_kind(value)}", path=key)
    return value


def _strings(body: Mapping[str, Any], key: str) -> list[str]:
    values = _list(body, key)
    if not all(isinstance(v, str) for v in values):
        raise DialectError("must be an array of strings", path=key)
    return values


def _tool(tool: Any, i: int) -> Any:
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
        raise DialectError("a tool is an object with a name", path=f"tools[{i}]")
    return tool


def _turn(turn: Any, k: int) -> Any:
    if not isinstance(turn, dict) or turn.get("role") not in ROLES:
        raise DialectError("a turn is an object with a role", path=f"turns[{k}]")
    if not isinstance(turn.get("parts"), list):
        raise DialectError("a turn has an array of parts", path=f"turns[{k}].parts")
    return turn


def _message(turn: dict[str, Any], k: int) -> Message:
    parts = tuple(_part(p, f"turns[{k}].parts[{j}]") for j, p in enumerate(turn["parts"]))
    return Message.read(NAME, (turn,), ROLES[turn["role"]], parts)


def _part(part: Any, path: str) -> Part:
    if isinstance(part, dict) and isinstance(part.get("text"), str):
        return Text(part["text"])
    if isinstance(part, dict) and isinstance(part.get("call"), dict):
        call = part["call"]
        return FunctionCall(str(call.get("name")), freeze(call.get("args")), call.get("id"))
    if isinstance(part, dict) and isinstance(part.get("result"), dict):
        result = part["result"]
        value: Json = freeze(result.get("value"))
        error = result.get("error") is True
        return FunctionResponse(str(result.get("name")), value, result.get("id"), error)
    raise DialectError("a part is a text, a call or a result", path=path)


def _render_tool(tool: Tool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        out["about"] = tool.description
    if tool.parameters is not None:
        out["input"] = thaw(tool.parameters)
    return out


def _render_turn(message: Message) -> Any:
    kept = message.kept(NAME)
    if kept is not None:
        return orjson.Fragment(kept[0])
    return {"role": WIRE_ROLES[message.role], "parts": [_render_part(p) for p in message.parts]}


def _render_part(part: Part) -> dict[str, Any]:
    if isinstance(part, FunctionCall):
        return {"call": {"id": part.id, "name": part.name, "args": thaw(part.args)}}
    if isinstance(part, FunctionResponse):
        result = {"id": part.id, "name": part.name, "value": thaw(part.response)}
        return {"result": result | ({"error": True} if part.is_error else {})}
    if isinstance(part, Text | Thinking):
        return {"text": part.text}
    if isinstance(part, Image):
        return {"text": part.url or f"[an image, {part.mime_type}]"}
    assert isinstance(part, Opaque)
    return {"text": part.as_text}


@pytest.fixture
def toy() -> Iterator[Dialect]:
    """The toy dialect, registered for the test only."""
    dialect = register(ToyDialect())
    yield dialect
    unregister(NAME)


PARENT = {
    "model": "toy-1",
    "system": ["You are a toy agent."],
    "tools": [{"name": "fork", "about": "Fork a worker.", "input": {"type": "object"}}],
    "turns": [{"role": "user", "parts": [{"text": "Look around."}]}],
}


def _write(path: Path, body: Any) -> str:
    path.write_bytes(orjson.dumps(body))
    return str(path)


def test_a_toy_body_reads_into_the_neutral_model_and_renders_back(toy: Dialect) -> None:
    assert get_dialect(NAME) is toy
    parsed = toy.parse(PARENT)
    assert [s.name for s in parsed.segments] == ["system", "tools[0]", "turns[0]"]
    assert toy.families(parsed.segments) == ("system", "tools", "history")
    assert parsed.settings == {"model": "toy-1"}
    assert parsed.request.history == (Message("user", (Text("Look around."),)),)
    assert toy.render(parsed.request) == orjson.dumps(PARENT)
    with pytest.raises(DialectError, match="turns"):
        toy.parse({"turns": 3})
    assert all_dialects()[NAME] is toy


def test_diff_reads_toy_bodies(toy: Dialect, tmp_path: Path) -> None:
    more = [{"role": "bot", "parts": [{"text": "Sure."}]}, {"role": "user", "parts": []}]
    child = PARENT | {"turns": [*PARENT["turns"], *more]}
    parent_file, child_file = (
        _write(tmp_path / "p.json", PARENT),
        _write(tmp_path / "c.json", child),
    )
    assert cli(["diff", "--dialect", NAME, parent_file, child_file]) == 0
    moved = child | {"system": ["You are another agent."]}
    assert cli(["diff", "--dialect", NAME, parent_file, _write(tmp_path / "m.json", moved)]) == 1
    assert cli(["diff", parent_file, child_file]) == 0  # detected: only the toy reads turns


def test_check_runs_the_reference_subject_in_the_toy_dialect(
    toy: Dialect, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", "--dialect", NAME, "--examples", "3", "--json", "--no-progress"]
    code = cli(argv)
    report = orjson.loads(capsys.readouterr().out)
    assert code == 0, report["summary"]
    assert report["dialects"] == [NAME]
    assert {r["dialect"] for r in report["reports"]} == {NAME}
    assert report["summary"]["failed"] == 0
    assert report["summary"]["counts"]["pass"] > 0


AGENT = textwrap.dedent(
    """
    import json, os, urllib.request

    BASE = os.environ["TOY_BASE_URL"]
    KEY = os.environ["TOY_API_KEY"]
    TAG = "<fork-boilerplate>You are a forked worker.</fork-boilerplate>"

    def ask(body):
        data = json.dumps(body).encode()
        headers = {"content-type": "application/json", "authorization": "Bearer " + KEY}
        request = urllib.request.Request(BASE + "/chat", data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())["turn"]

    body = json.loads(os.environ["TOY_PARENT"])
    turn = ask(body)
    body["turns"].append(turn)
    calls = [p["call"] for p in turn["parts"] if "call" in p]
    results = [
        {"result": {"id": c["id"], "name": c["name"], "value": "Started in the background."}}
        for c in calls
    ]
    for call in calls:
        directive = call["args"]["directive"]
        child = json.loads(json.dumps(body))
        child["turns"].append(
            {"role": "user", "parts": [*results, {"text": TAG + " Directive: " + directive}]}
        )
        print("worker:", ask(child)["parts"][0]["text"])
    body["turns"].append({"role": "user", "parts": results})
    print("parent:", ask(body)["parts"][0]["text"])
    """
)
SCRIPT = {
    "fork_tag": "<fork-boilerplate>",
    "rules": [
        {
            "when": {"in_fork_child": True},
            "reply": {"text": "Worker done."},
            "mark": "child",
        },
        {
            "when": {"first": True, "in_fork_child": False},
            "reply": {"call": [{"name": "fork", "args": {"directive": "list the files"}}]},
            "mark": "parent",
        },
    ],
    "default": {"text": "All done."},
}


def test_capture_records_and_checks_a_program_speaking_toy(
    toy: Dialect,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    agent, script = tmp_path / "agent.py", tmp_path / "script.json"
    agent.write_text(AGENT, encoding="utf-8")
    script.write_bytes(orjson.dumps(SCRIPT))
    monkeypatch.setenv("TOY_PARENT", orjson.dumps(PARENT).decode())
    record = tmp_path / "toy.jsonl"
    argv = ["capture", "--dialect", NAME, "--script", str(script), "--record", str(record)]
    code = cli([*argv, "--json", "--", sys.executable, str(agent)])
    out, err = capfd.readouterr()
    assert code == 0, err
    assert "worker: Worker done." in err
    assert "parent: All done." in err
    assert "TOY_BASE_URL=http://127.0.0.1:" in err  # the wire's own environment
    lines = [orjson.loads(line) for line in record.read_bytes().splitlines()]
    assert [line["dialect"] for line in lines] == [NAME] * 3
    assert [line["mark"] for line in lines] == ["parent", "child", None]
    report = orjson.loads(out)
    assert report["dialects"] == [NAME]
    assert report["summary"]["failed"] == 0
    (fork,) = [r for r in report["reports"] if r["scenario"] == "fork-1"]
    found = {f["rule"]: f["status"] for f in fork["findings"]}
    assert found["byte-prefix"] == found["history-inherited"] == "pass"
    assert found["cache-markers"] == "not-applicable"  # the toy has no markers


def test_the_toy_agent_needs_the_fake_it_was_given(toy: Dialect) -> None:
    """The program reads only the environment capture gives it: without it, it fails."""
    done = subprocess.run(
        [sys.executable, "-c", AGENT], capture_output=True, text=True, env={}, check=False
    )
    assert done.returncode != 0
    assert "TOY_BASE_URL" in done.stderr
