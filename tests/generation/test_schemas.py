"""json_schemas and ordinary tools' schemas: deep and wide ones reachable, every schema a
valid object schema within its bounds, the simplest for seed 0."""

import orjson
import pytest
from hypothesis import HealthCheck, Phase, find, settings

from harness.generation._schemas import plain_schema, schema_of
from harness.strategies import json_schemas, tools

FOUND = settings(
    max_examples=1000,  # a search, not a property: it stops at the first example found
    derandomize=True,  # the same draws every run, so a rare shape cannot make it flaky
    database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)


def _depth_and_width(schema: object) -> tuple[int, int]:
    if isinstance(schema, dict):
        props = schema.get("properties")
        width = len(props) if isinstance(props, dict) else 0
        deeper = [_depth_and_width(v) for v in schema.values()]
        if isinstance(props, dict):
            deeper = [_depth_and_width(v) for v in props.values()]
            deeper += [_depth_and_width(schema.get("items")), _depth_and_width(schema.get("anyOf"))]
        d = max((x for x, _ in deeper), default=0) + (1 if isinstance(props, dict) else 0)
        return d, max([width, *(w for _, w in deeper)])
    if isinstance(schema, tuple | list):
        inner = [_depth_and_width(v) for v in schema]
        return max((d for d, _ in inner), default=0), max((w for _, w in inner), default=0)
    return 0, 0


def test_large_schemas_are_deep_and_wide() -> None:
    schema = find(
        json_schemas(max_depth=6, max_width=24),
        lambda s: _depth_and_width(s) >= (5, 20),
        settings=FOUND,
    )
    assert schema["type"] == "object"
    large = find(
        tools(min_size=1, max_size=2, large_schemas=True),
        lambda ts: any(_depth_and_width(t.parameters)[0] >= 4 for t in ts),
        settings=FOUND,
    )
    assert large


def _property_schemas(schema: object) -> int:
    if isinstance(schema, dict):
        props = schema.get("properties")
        own = len(props) if isinstance(props, dict) else 0
        return own + sum(_property_schemas(v) for v in schema.values())
    if isinstance(schema, tuple | list):
        return sum(_property_schemas(v) for v in schema)
    return 0


def test_seed_0_is_the_simplest_schema() -> None:
    assert schema_of(0, 0, 0) == {"type": "object", "properties": {}, "required": ()}
    assert plain_schema(0) == {"type": "object", "properties": {}, "required": ()}
    assert list(schema_of(3, 2, 0)["properties"]) == ["a", "a_"]


@pytest.mark.parametrize("seed", range(1, 80))
def test_schemas_stay_within_their_bounds(seed: int) -> None:
    for depth, width in ((0, 1), (2, 3), (6, 24)):
        schema = schema_of(depth, width, seed)
        assert schema["type"] == "object"
        assert len(schema["properties"]) == width
        assert _depth_and_width(schema)[0] <= depth + 2  # $defs and anyOf nest one level more
        assert _property_schemas(schema) <= 400 + width
        assert orjson.loads(orjson.dumps(schema)) is not None
    plain = plain_schema(seed)
    assert plain["type"] in ("object", "array")
    assert _depth_and_width(plain)[0] <= 3


def test_ordinary_schemas_vary_in_shape_and_key_order() -> None:
    shapes = {orjson.dumps(plain_schema(seed)) for seed in range(1, 100)}
    assert len(shapes) > 60
    assert any(plain_schema(s)["type"] == "array" for s in range(1, 100))
    assert any(next(iter(plain_schema(s))) != "type" for s in range(1, 100))
