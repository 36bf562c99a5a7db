"""inline_refs: a schema's references put in place validate exactly as the references do,
and a cycle or an unknown document is left as a reference."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
from referencing import Registry, Resource

from harness.check import bundled_fixtures
from harness.scenarios import load_fixtures, scenario_to_json
from harness.scenarios._refs import inline_refs

BASE = "https://example.invalid/s/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
MAIN = {
    "$schema": DRAFT,
    "$id": BASE + "main.json",
    "type": "object",
    "properties": {
        "name": {"$ref": "#/$defs/nonblank"},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/nonblank", "maxLength": 3}},
        "other": {"$ref": "other.json"},
        "self": {"$ref": "#"},
    },
    "$defs": {"nonblank": {"type": "string", "pattern": "\\S"}},
}
OTHER = {
    "$schema": DRAFT,
    "$id": BASE + "other.json",
    "$defs": {"n": {"type": "integer"}},
    "$ref": "#/$defs/n",
}


def validators() -> tuple[Any, Any]:
    registry: Registry[Any] = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in (MAIN, OTHER)
    )
    inlined = inline_refs(MAIN, {s["$id"]: s for s in (MAIN, OTHER)})
    return Draft202012Validator(MAIN, registry=registry), Draft202012Validator(
        inlined, registry=registry
    )


def test_references_are_put_in_place_but_cycles_and_unknown_documents() -> None:
    inlined = inline_refs(MAIN, {s["$id"]: s for s in (MAIN, OTHER)})
    props = inlined["properties"]
    assert props["name"] == {"type": "string", "pattern": "\\S"}
    assert props["tags"]["items"] == {"maxLength": 3, "allOf": [MAIN["$defs"]["nonblank"]]}
    assert props["other"]["allOf"] == [{"type": "integer"}]
    away = {"$id": BASE + "a.json", "items": {"$ref": "https://elsewhere.invalid/x.json"}}
    assert inline_refs(away, {}) == away
    assert props["self"]["properties"]["self"] == {"$ref": "#"}  # the cycle stops there
    assert MAIN["properties"]["name"] == {"$ref": "#/$defs/nonblank"}  # the input is kept


@pytest.mark.parametrize(
    "instance",
    [
        {"name": "x", "tags": ["a", "bc"], "other": 3, "self": {"name": "y"}},
        {"name": " ", "tags": ["abcd", " "], "other": "3", "self": {"name": ""}},
        {"name": 1, "tags": "no", "other": None},
    ],
)
def test_an_inlined_schema_finds_the_same_errors(instance: Any) -> None:
    plain, inlined = validators()

    def found(v: Any) -> list[tuple[list[Any], str]]:
        return sorted((list(e.absolute_path), e.message) for e in v.iter_errors(instance))

    assert found(inlined) == found(plain)


def test_the_shipped_scenario_schema_is_inlined_whole() -> None:
    from harness.scenarios._checks import _validator

    schema = _validator("fixtures.schema.json").schema
    assert "$ref" not in json.dumps(schema)
    corpus = {
        "description": "the corpus",
        "scenarios": [scenario_to_json(s) for s in load_fixtures(bundled_fixtures())],
    }
    assert not list(
        _validator("fixtures.schema.json").iter_errors(orjson.loads(orjson.dumps(corpus)))
    )
