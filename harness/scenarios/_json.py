"""Scenarios as language-neutral JSON, and the fixture files that hold them (README,
"Fixtures and snapshots").

The shapes are fixed by ``scenario.schema.json`` and ``fixtures.schema.json`` beside this
module, the single source of truth that ships with the fixtures for other languages. JSON
objects keep their key order both ways, because key order reaches the model. Reading
checks the schema, then what it cannot say (see ``_checks``), then duplicate ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import orjson

from ..model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Opaque,
    OutputSchema,
    Part,
    Preset,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
    join_path,
    thaw,
)
from ._checks import ScenarioFormatError, check_schema, scenario_label, semantic_problems
from ._scenario import Continuation, FollowUp, Scenario

__all__ = ["load_fixtures", "scenario_from_json", "scenario_to_json"]


# --- neutral model -> JSON ---------------------------------------------------------------


def _drop_none(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _part_to_json(part: Part) -> dict[str, Any]:
    """A part's JSON. Texts, calls and responses, nearly every part of a long history, come
    first and are built with no keyword dict to filter; any other part goes through
    ``_other_part_to_json``."""
    if isinstance(part, Text):
        return {"text": part.text}
    if isinstance(part, FunctionCall):
        fc = part
        call: dict[str, Any] = {} if fc.id is None else {"id": fc.id}
        if fc.name is not None:
            call["name"] = fc.name
        args = fc.args
        call["args"] = args if type(args) in _LEAVES else _thaw(args)
        if fc.signature is not None:
            call["signature"] = fc.signature
        return {"function_call": call}
    if isinstance(part, FunctionResponse):
        fr = part
        response: dict[str, Any] = {} if fr.id is None else {"id": fr.id}
        if fr.name is not None:
            response["name"] = fr.name
        value = fr.response  # JSON null is a response, not a default
        response["response"] = value if type(value) in _LEAVES else _thaw(value)
        is_error = fr.is_error or None
        if is_error is not None:
            response["is_error"] = is_error
        return {"function_response": response}
    return _other_part_to_json(part)


_LEAVES: Final = frozenset({str, int, bool, float, type(None)})
"""The exact types of JSON leaves, which ``thaw`` returns as they are."""


def _thaw(value: Any) -> Any:
    """``thaw(value)``, with no call per leaf of an exact dict, ``FrozenDict`` or tuple;
    anything else is ``thaw``'s own."""
    kind = type(value)
    if kind is FrozenDict or kind is dict:
        return {k: (v if type(v) in _LEAVES else _thaw(v)) for k, v in value.items()}
    if kind is tuple:
        return [v if type(v) in _LEAVES else _thaw(v) for v in value]
    return thaw(value)


def _other_part_to_json(part: Thinking | Opaque | Image) -> dict[str, Any]:
    """The JSON of a thinking, opaque or image part."""
    if isinstance(part, Thinking):
        return {
            "thinking": _drop_none(
                text=part.text, signature=part.signature, redacted=part.redacted or None
            )
        }
    if isinstance(part, Opaque):
        opaque = _drop_none(kind=part.kind, dialect=part.dialect)
        opaque["value"] = thaw(part.value)  # JSON null is a value, not a default
        return {"opaque": opaque}
    return {
        "image": _drop_none(
            mime_type=part.mime_type, data=part.data, url=part.url, detail=part.detail
        )
    }


def _message_to_json(message: Message) -> dict[str, Any]:
    return {"role": message.role, "parts": [_part_to_json(p) for p in message.parts]}


def _tool_to_json(tool: Tool) -> dict[str, Any]:
    parameters = None if tool.parameters is None else thaw(tool.parameters)
    return _drop_none(name=tool.name, description=tool.description, parameters=parameters)


def _settings_to_json(s: Settings) -> dict[str, Any]:
    t, c, o = s.thinking, s.tool_choice, s.output_schema
    return _drop_none(
        model=s.model,
        temperature=s.temperature,
        top_p=s.top_p,
        top_k=s.top_k,
        max_output_tokens=s.max_output_tokens,
        stop=None if s.stop is None else list(s.stop),
        thinking=None
        if t is None
        else _drop_none(
            mode=t.mode,
            budget_tokens=t.budget_tokens,
            effort=t.effort,
            include_thoughts=t.include_thoughts,
        ),
        tool_choice=None if c is None else _drop_none(mode=c.mode, names=list(c.names) or None),
        output_schema=None
        if o is None
        else _drop_none(schema=thaw(o.schema), name=o.name, strict=o.strict),
        extra=thaw(s.extra) or None,
    )


def _continuation_to_json(c: Continuation) -> dict[str, Any]:
    return _drop_none(
        task=c.task,
        parent_id=c.parent_id,
        tool_filter=None if c.tool_filter is None else list(c.tool_filter),
        persona=None if c.persona is None else list(c.persona),
        output_tool=None if c.output_tool is None else _tool_to_json(c.output_tool),
        output_section=c.output_section,
        follow_ups=[
            {"reply": _message_to_json(f.reply), "message": _message_to_json(f.message)}
            for f in c.follow_ups
        ]
        or None,
    )


def scenario_to_json(scenario: Scenario) -> dict[str, Any]:
    """The scenario as plain JSON data; fields at their default value are left out."""
    s = scenario
    return _drop_none(
        id=s.id,
        description=s.description or None,
        tags=list(s.tags) or None,
        action=s.action,
        fork_tool=None if s.fork_tool == "agent" else s.fork_tool,
        snapshot=None if s.snapshot else False,
        known_fork_child=s.known_fork_child or None,
        directives=list(s.directives) or None,
        prompt=s.prompt,
        answer=s.answer,
        continuation=None if s.continuation is None else _continuation_to_json(s.continuation),
        preset={
            "system": list(s.preset.system),
            "tools": [_tool_to_json(t) for t in s.preset.tools],
            "settings": _settings_to_json(s.preset.settings),
        },
        default_tools=[_tool_to_json(t) for t in s.default_tools] or None,
        history=[{"role": m.role, "parts": [_part_to_json(p) for p in m.parts]} for m in s.history],
    )


# --- JSON -> neutral model (data already valid against the schema) -----------------------


def _part(data: Mapping[str, Any]) -> Part:
    ((kind, v),) = data.items()
    if kind == "text":
        return Text(v)
    if kind == "function_call":
        return FunctionCall(v["name"], freeze(v["args"]), v.get("id"), v.get("signature"))
    if kind == "function_response":
        return FunctionResponse(
            v["name"], freeze(v["response"]), v.get("id"), v.get("is_error", False)
        )
    if kind == "thinking":
        return Thinking(v["text"], v.get("signature"), v.get("redacted", False))
    if kind == "opaque":
        return Opaque(v["kind"], freeze(v["value"]), v.get("dialect"))
    return Image(**v)


def _message(data: Mapping[str, Any]) -> Message:
    return Message(data["role"], tuple(_part(p) for p in data["parts"]))


def _tool(data: Mapping[str, Any]) -> Tool:
    return Tool(data["name"], data.get("description"), freeze(data.get("parameters")))


def _strings(value: Sequence[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _settings(data: Mapping[str, Any]) -> Settings:
    t, c, o = data.get("thinking"), data.get("tool_choice"), data.get("output_schema")
    return Settings(
        model=data.get("model"),
        temperature=data.get("temperature"),
        top_p=data.get("top_p"),
        top_k=data.get("top_k"),
        max_output_tokens=data.get("max_output_tokens"),
        stop=_strings(data.get("stop")),
        thinking=None if t is None else ThinkingConfig(**t),
        tool_choice=None if c is None else ToolChoice(c["mode"], tuple(c.get("names", ()))),
        output_schema=None
        if o is None
        else OutputSchema(freeze(o["schema"]), o.get("name"), o.get("strict")),
        extra=FrozenDict((k, freeze(v)) for k, v in data.get("extra", {}).items()),
    )


def _continuation(data: Mapping[str, Any]) -> Continuation:
    output_tool = data.get("output_tool")
    return Continuation(
        task=data["task"],
        parent_id=data["parent_id"],
        tool_filter=_strings(data.get("tool_filter")),
        persona=_strings(data.get("persona")),
        output_tool=None if output_tool is None else _tool(output_tool),
        output_section=data.get("output_section"),
        follow_ups=tuple(
            FollowUp(_message(f["reply"]), _message(f["message"]))
            for f in data.get("follow_ups", ())
        ),
    )


def _scenario(data: Mapping[str, Any]) -> Scenario:
    preset = data["preset"]
    continuation = data.get("continuation")
    return Scenario(
        id=data["id"],
        action=data["action"],
        preset=Preset(
            system=tuple(preset.get("system", ())),
            tools=tuple(_tool(t) for t in preset.get("tools", ())),
            settings=_settings(preset.get("settings", {})),
        ),
        history=tuple(_message(m) for m in data["history"]),
        directives=tuple(data.get("directives", ())),
        fork_tool=data.get("fork_tool", "agent"),
        snapshot=data.get("snapshot", True),
        known_fork_child=data.get("known_fork_child", False),
        default_tools=tuple(_tool(t) for t in data.get("default_tools", ())),
        continuation=None if continuation is None else _continuation(continuation),
        prompt=data.get("prompt"),
        answer=data.get("answer"),
        description=data.get("description", ""),
        tags=tuple(data.get("tags", ())),
    )


def _build(data: Mapping[str, Any], source: str, index: int | None) -> Scenario:
    """A schema-valid scenario as a ``Scenario``, or the first problem the schema misses."""
    base: tuple[str | int, ...] = () if index is None else ("scenarios", index)
    label = scenario_label(data, index)
    try:
        scenario = _scenario(data)
    except ValueError as e:  # Scenario's own checks, should the schema let one through
        problem = str(e).removeprefix(f"scenario {data['id']!r}: ")
        raise ScenarioFormatError(
            source, problem, scenario=label, path=join_path("", *base)
        ) from None
    found = next(semantic_problems(scenario), None)
    if found is not None:
        path, problem = found
        raise ScenarioFormatError(source, problem, scenario=label, path=join_path("", *base, *path))
    return scenario


def scenario_from_json(data: Any, *, source: str = "<scenario>") -> Scenario:
    """The ``Scenario`` of one JSON scenario; ``ScenarioFormatError`` names ``source`` otherwise."""
    check_schema("scenario.schema.json", data, source=source)
    return _build(data, source, None)


def _load_file(file: Path) -> list[Scenario]:
    """The scenarios of one fixture file (a leading UTF-8 byte-order mark is skipped)."""
    source = str(file)
    try:
        data = orjson.loads(file.read_bytes().removeprefix(b"\xef\xbb\xbf"))
    except FileNotFoundError:
        raise ScenarioFormatError(source, "no such file") from None
    except orjson.JSONDecodeError as e:
        raise ScenarioFormatError(source, f"is not valid JSON: {e}") from None
    try:
        check_schema("fixtures.schema.json", data, source=source)
        return [_build(d, source, i) for i, d in enumerate(data["scenarios"])]
    except RecursionError:
        raise ScenarioFormatError(source, "is nested too deeply to read") from None


def load_fixtures(path: str | Path) -> list[Scenario]:
    """Every scenario of a fixture file, or of the ``*.json`` fixture files of a folder.

    Files are read in name order (schemas, ``*.schema.json``, are skipped); an id used
    twice anywhere among them is an error.
    """
    root = Path(path)
    files = (
        sorted(p for p in root.glob("*.json") if not p.name.endswith(".schema.json"))
        if root.is_dir()
        else [root]
    )
    if not files:
        raise ScenarioFormatError(str(root), "holds no fixture files (*.json)")
    first_use: dict[str, str] = {}
    scenarios: list[Scenario] = []
    for file in files:
        for i, scenario in enumerate(_load_file(file)):
            if scenario.id in first_use:
                raise ScenarioFormatError(
                    str(file),
                    f"duplicate id, first used in {first_use[scenario.id]}",
                    scenario=repr(scenario.id),
                    path=f"scenarios[{i}].id",
                )
            first_use[scenario.id] = f"{file} at scenarios[{i}]"
            scenarios.append(scenario)
    return scenarios
