"""Checking scenario JSON: the shipped JSON Schemas first, then what a schema cannot say.

Every problem becomes one ``ScenarioFormatError`` naming the file, the scenario (its id, or
its index when it has none) and the JSON path, so a broken fixture reads as one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from typing import Any, Literal

import orjson
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
from jsonschema.exceptions import best_match  # type: ignore[import-untyped, unused-ignore]
from referencing import Registry, Resource

from ..assemblers import calls_answered, history_problems
from ..model import join_path
from ._refs import inline_refs
from ._scenario import Scenario

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
def _validator(name: SchemaName) -> Any:
    """A validator for one shipped schema, built once, its ``$ref``s put in place (see
    ``inline_refs``); the other is in its registry for any that could not be."""
    registry: Registry[Any] = Registry()
    schemas: dict[str, Any] = {}
    for filename in _SCHEMAS:
        schema = orjson.loads(resources.files(__package__).joinpath(filename).read_bytes())
        schemas[filename] = schema
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    documents = {schema["$id"]: schema for schema in schemas.values()}
    return Draft202012Validator(inline_refs(schemas[name], documents), registry=registry)


def scenario_label(data: Any, index: int | None) -> str:
    """How an error names a scenario: its quoted id, else ``#index``, else nothing."""
    found = data.get("id") if isinstance(data, Mapping) else None
    if isinstance(found, str) and found:
        return repr(found)
    return "" if index is None else f"#{index}"


def check_schema(name: SchemaName, data: Any, *, source: str) -> None:
    """Raise ``ScenarioFormatError`` for the most relevant violation of schema ``name``."""
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
