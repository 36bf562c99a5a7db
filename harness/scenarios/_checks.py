"""Checking scenario JSON: the shipped JSON Schemas first, then what a schema cannot say.

Every problem becomes one ``ScenarioFormatError`` naming the file, the scenario (its id, or
its index when it has none) and the JSON path, so a broken fixture reads as one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson

from ..model import join_path
from ._history import calls_answered, history_problems
from ._refs import inline_refs
from ._scenario import Scenario

if TYPE_CHECKING:  # loaded with the first validator: what only reads scenarios never pays
    from referencing import Registry

__all__ = ["ScenarioFormatError", "check_schema", "scenario_label", "semantic_problems"]

SchemaName = Literal["scenario.schema.json", "fixtures.schema.json"]
_SCHEMAS: tuple[SchemaName, ...] = ("scenario.schema.json", "fixtures.schema.json")
_MAX_PROBLEM = 240
_HISTORY_PROBLEM = re.compile(r"history\[(\d+)\] (.*)", re.DOTALL)


class ScenarioFormatError(ValueError):
    """A scenario or fixture file that breaks the format; ``str()`` is the sentence to print.

    ``scenario`` is the scenario's id (quoted), or ``#<index>`` in its file when it has
    none; ``path`` is the JSON path of the problem (``scenarios[2].history[3].parts[0]``).
    """

    def __init__(self, source: str, problem: str, *, scenario: str = "", path: str = "") -> None:
        where = " ".join(
            filter(None, (f"scenario {scenario}" if scenario else "", f"at {path}" if path else ""))
        )
        super().__init__(f"{source}: {where}: {problem}" if where else f"{source}: {problem}")
        self.source = source
        self.problem = problem
        self.scenario = scenario
        self.path = path


@cache
def _schemas() -> tuple[dict[str, Any], Registry[Any]]:
    """The shipped schemas by file name, their ``$ref``s put in place (see ``inline_refs``),
    and a registry holding them as shipped for any reference that could not be."""
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry()
    schemas: dict[str, Any] = {}
    for filename in _SCHEMAS:
        schema = orjson.loads(resources.files(__package__).joinpath(filename).read_bytes())
        schemas[filename] = schema
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    documents = {schema["$id"]: schema for schema in schemas.values()}
    return {name: inline_refs(schemas[name], documents) for name in _SCHEMAS}, registry


@cache
def _validator(name: SchemaName) -> Any:
    """A validator for one shipped schema, built once."""
    schemas, registry = _schemas()
    return _draft(schemas[name], registry)


def _draft(schema: Any, registry: Registry[Any]) -> Any:
    """A JSON Schema 2020-12 validator of ``schema``."""
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]

    return Draft202012Validator(schema, registry=registry)


_PLAIN_MESSAGE: Final = {
    "type": "object",
    "required": ["role", "parts"],
    "additionalProperties": False,
    "properties": {
        "role": {"enum": ["user", "model", "system"]},
        "parts": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "minProperties": 1,
                "maxProperties": 1,
                "additionalProperties": False,
                "properties": {
                    "text": {"type": "string"},
                    "function_call": {
                        "type": "object",
                        "required": ["name", "args"],
                        "additionalProperties": False,
                        "properties": {
                            "id": {"type": "string"},
                            "name": {"type": "string", "minLength": 1},
                            "args": {"type": "object"},
                            "signature": {"type": "string"},
                        },
                    },
                    "function_response": {
                        "type": "object",
                        "required": ["name", "response"],
                        "additionalProperties": False,
                        "properties": {
                            "id": {"type": "string"},
                            "name": {"type": "string", "minLength": 1},
                            "response": {},
                            "is_error": {"type": "boolean"},
                        },
                    },
                    "thinking": "other",
                    "image": "other",
                    "opaque": "other",
                },
            },
        },
    },
}
"""The message schema ``_plain_message`` mirrors (descriptions left out; the parts it never
vouches for stand as ``"other"``)."""

_OTHER_PARTS: Final = ("thinking", "image", "opaque")
_ROLES: Final = frozenset({"user", "model", "system"})
_CALL_KEYS: Final = frozenset({"id", "name", "args", "signature"})
_RESPONSE_KEYS: Final = frozenset({"id", "name", "response", "is_error"})


def _skeleton(schema: Any) -> Any:
    """``schema`` without its descriptions, as nested ``properties`` and ``items`` hold it."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k != "description"}
    if isinstance(out.get("items"), dict):
        out["items"] = _skeleton(out["items"])
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _skeleton(v) for k, v in out["properties"].items()}
    return out


@cache
def _plain_history() -> tuple[Any, Any] | None:
    """The scenario schema's validator with its history's items let through, and its
    message's: together they decide what the full validator does, as nothing else in the
    schema looks at the history's items. None (no fast path) unless the shipped history
    schema is the array of ``_PLAIN_MESSAGE`` that ``_plain_message`` was written for."""
    schemas, registry = _schemas()
    scenario = schemas["scenario.schema.json"]
    history = scenario["properties"]["history"]
    message = history.get("items")
    shape = _skeleton(message)
    try:
        parts = shape["properties"]["parts"]["items"]["properties"]
        parts.update(dict.fromkeys(_OTHER_PARTS, "other"))
    except (KeyError, TypeError, AttributeError):
        return None
    rest = {k: v for k, v in _skeleton(history).items() if k != "items"}
    opt = orjson.OPT_SORT_KEYS
    if (
        orjson.dumps(shape, option=opt) != orjson.dumps(_PLAIN_MESSAGE, option=opt)
        or rest != {"type": "array"}
        or b"unevaluated" in orjson.dumps(scenario)
    ):
        return None
    relaxed = {
        **scenario,
        "properties": {**scenario["properties"], "history": {**history, "items": True}},
    }
    return (
        _draft(relaxed, registry),
        _draft(message, registry),
    )


def _plain_message(message: Any) -> bool:
    """True only if ``message`` is valid against ``_PLAIN_MESSAGE``, by exact types (a
    subclass, or a thinking, image or opaque part, is left to the validator: False)."""
    if type(message) is not dict or len(message) != 2:
        return False
    role, parts = message.get("role"), message.get("parts")
    if type(role) is not str or role not in _ROLES or type(parts) is not list or not parts:
        return False
    for part in parts:
        if type(part) is not dict or len(part) != 1:
            return False
        ((kind, value),) = part.items()
        if kind == "text":
            if type(value) is not str:
                return False
        elif kind == "function_call":
            if (
                type(value) is not dict
                or not value.keys() <= _CALL_KEYS
                or type(value.get("name")) is not str
                or not value["name"]
                or type(value.get("args")) is not dict
                or ("id" in value and type(value["id"]) is not str)
                or ("signature" in value and type(value["signature"]) is not str)
            ):
                return False
        elif kind == "function_response":
            if (
                type(value) is not dict
                or not value.keys() <= _RESPONSE_KEYS
                or type(value.get("name")) is not str
                or not value["name"]
                or "response" not in value
                or ("id" in value and type(value["id"]) is not str)
                or ("is_error" in value and type(value["is_error"]) is not bool)
            ):
                return False
        else:
            return False
    return True


def _plainly_valid(data: Any) -> bool:
    """True only if ``data`` is valid against the scenario schema: its history's messages
    checked by ``_plain_message`` (else by the message's validator), the rest by a validator
    that lets the history's items through. A long history is most of a scenario, and the
    validator's walk through it most of the check; False leaves it all to the full one."""
    plain = _plain_history()
    if plain is None or type(data) is not dict:
        return False
    history = data.get("history")
    if type(history) is not list:
        return False
    relaxed, message_validator = plain
    for message in history:
        if not _plain_message(message) and not message_validator.is_valid(message):
            return False
    return bool(relaxed.is_valid(data))


@cache
def _plain_fixtures() -> Any | None:
    """The fixture-file schema's validator with its scenarios let through, which with the
    scenario schema's decides what the full validator does; None (no fast path) unless its
    scenarios are exactly the scenario schema's and that has its own fast path."""
    schemas, registry = _schemas()
    fixtures = schemas["fixtures.schema.json"]
    scenarios = fixtures["properties"]["scenarios"]
    opt = orjson.OPT_SORT_KEYS
    if (
        _plain_history() is None
        or orjson.dumps(scenarios.get("items"), option=opt)
        != orjson.dumps(schemas["scenario.schema.json"], option=opt)
        or b"unevaluated" in orjson.dumps(fixtures)
    ):
        return None
    relaxed = {
        **fixtures,
        "properties": {**fixtures["properties"], "scenarios": {**scenarios, "items": True}},
    }
    return _draft(relaxed, registry)


def _plain_fixture_file(data: Any) -> bool:
    """True only if ``data`` is valid against the fixture-file schema: each scenario by
    ``_plainly_valid``, the rest by a validator that lets the scenarios through."""
    relaxed = _plain_fixtures()
    if relaxed is None or type(data) is not dict:
        return False
    scenarios = data.get("scenarios")
    if type(scenarios) is not list or not all(_plainly_valid(s) for s in scenarios):
        return False
    return bool(relaxed.is_valid(data))


def scenario_label(data: Any, index: int | None) -> str:
    """How an error names a scenario: its quoted id, else ``#index``, else nothing."""
    found = data.get("id") if isinstance(data, Mapping) else None
    if isinstance(found, str) and found:
        return repr(found)
    return "" if index is None else f"#{index}"


def check_schema(name: SchemaName, data: Any, *, source: str) -> None:
    """Raise ``ScenarioFormatError`` for the most relevant violation of schema ``name``."""
    plain = _plainly_valid if name == "scenario.schema.json" else _plain_fixture_file
    if plain(data):
        return
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped, unused-ignore]

    error = best_match(_validator(name).iter_errors(data))
    if error is None:
        return
    path = list(error.absolute_path)
    if name == "scenario.schema.json":
        label = scenario_label(data, None)
    elif len(path) >= 2 and path[0] == "scenarios":
        label = scenario_label(data["scenarios"][path[1]], path[1])
    else:
        label = ""
    problem = error.message
    if len(problem) > _MAX_PROBLEM:
        problem = problem[: _MAX_PROBLEM - 1] + "…"
    raise ScenarioFormatError(source, problem, scenario=label, path=join_path("", *path))


def semantic_problems(scenario: Scenario) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """What the schema cannot say, as (path inside the scenario, problem): duplicate tool
    names, a history that does not alternate or pair its calls (its last message may leave
    calls open: the fork call), follow-ups that do not answer their reply's calls."""
    declared = (
        (("preset", "tools"), scenario.preset.tools),
        (("default_tools",), scenario.default_tools),
    )
    for where, tools in declared:
        names = [t.name for t in tools]
        for i, name in enumerate(names):
            if name in names[:i]:
                yield (*where, i), f"tool {name!r} is declared twice"
    for problem in history_problems(scenario.history):
        match = _HISTORY_PROBLEM.match(problem)
        yield (("history", int(match[1])), match[2]) if match else (("history",), problem)
    follow_ups = scenario.continuation.follow_ups if scenario.continuation else ()
    for j, step in enumerate(follow_ups):
        path = ("continuation", "follow_ups", j)
        if step.reply.function_responses:
            yield (*path, "reply"), "a model reply holds function responses"
        if step.message.function_calls:
            yield (*path, "message"), "a user message holds function calls"
        if not calls_answered(step.reply.function_calls, step.message.function_responses):
            yield (*path, "message"), "does not answer the calls of the reply one to one"
