from enum import IntEnum
from typing import Any

import orjson
import pytest
from hypothesis import example, given

from harness.model import FrozenDict, canonical, freeze, same_value, thaw
from harness.strategies import json_values


def test_key_order_is_part_of_equality() -> None:
    a = freeze({"type": "object", "properties": {}})
    b = freeze({"properties": {}, "type": "object"})
    assert a != b
    assert a == freeze({"type": "object", "properties": {}})
    assert hash(a) == hash(freeze({"type": "object", "properties": {}}))


def test_plain_dict_compares_in_order_too() -> None:
    assert FrozenDict({"a": 1, "b": 2}) == {"a": 1, "b": 2}
    assert FrozenDict({"a": 1, "b": 2}) != {"b": 2, "a": 1}


def test_nested_key_order_is_part_of_equality_at_every_depth() -> None:
    inner, swapped = {"a": 1, "b": [1, {"c": 2, "d": 3}]}, {"a": 1, "b": [1, {"d": 3, "c": 2}]}
    assert freeze({"x": inner}) == freeze({"x": inner})
    assert freeze({"x": inner}) != freeze({"x": swapped})
    assert freeze({"x": inner}) != {"x": swapped}  # a plain value inside: in order as well
    assert {"x": swapped} != freeze({"x": inner})
    assert freeze({"x": {"c": 2, "d": 3}}) == {"x": {"c": 2, "d": 3}}
    assert freeze({"x": 1}) != freeze({"x": 1, "y": 2})
    assert freeze({"x": 1, "y": 2}) != freeze({"y": 2, "x": 1})


@given(json_values(), json_values())
def test_equality_is_that_of_the_encodings(a, b) -> None:  # type: ignore[no-untyped-def]
    """Two frozen values are equal exactly when they encode alike (orjson keeps key order),
    numbers aside (1 == 1.0 == True in Python, as in the neutral model)."""
    fa, fb = freeze(a), freeze(b)
    assert fa == fa
    if orjson.dumps(fa) == orjson.dumps(fb):
        assert fa == fb
    elif fa == fb:
        assert thaw(fa) == thaw(fb)  # only numbers that Python equates differ in bytes


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.__setitem__("x", 1),
        lambda d: d.__delitem__("a"),
        lambda d: d.update({"x": 1}),
        lambda d: d.pop("a"),
        lambda d: d.clear(),
        lambda d: d.setdefault("x", 1),
    ],
)
def test_frozen_dict_refuses_mutation(mutate) -> None:  # type: ignore[no-untyped-def]
    d = FrozenDict({"a": 1})
    with pytest.raises(TypeError, match="immutable"):
        mutate(d)
    assert d == {"a": 1}


def test_freeze_is_deep_and_orjson_encodes_in_order() -> None:
    value = freeze({"z": [1, {"b": 2, "a": 1}], "a": None})
    assert isinstance(value, FrozenDict)
    assert value["z"] == (1, FrozenDict({"b": 2, "a": 1}))
    assert orjson.dumps(value) == b'{"z":[1,{"b":2,"a":1}],"a":null}'


def test_freeze_rejects_non_json() -> None:
    with pytest.raises(TypeError, match="not a JSON value: set"):
        freeze({"a": {1, 2}})


@given(json_values())
def test_thaw_then_freeze_is_identity(value) -> None:  # type: ignore[no-untyped-def]
    assert freeze(thaw(value)) == value
    assert orjson.dumps(thaw(value)) == orjson.dumps(value)


def _shape(value: Any) -> Any:
    """A value with the exact type of every node and the order of every object's keys."""
    if isinstance(value, dict):
        return (type(value), tuple((type(k), k, _shape(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value), tuple(_shape(v) for v in value))
    return (type(value), value)


def _freeze_by_type(value: Any) -> Any:
    """``freeze`` node by node, with no fast path for leaf-only objects and arrays."""
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, dict):
        return FrozenDict((str(k), _freeze_by_type(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_freeze_by_type(v) for v in value)
    return value


class _Key(str):
    pass


class _Number(IntEnum):
    ONE = 1


@given(json_values())
@example({"a": 1, "b": True, "c": 1.0, "d": None, "e": "x"})
@example({1: "one", "a": [1, True, 1.0, None]})
@example({_Key("k"): 1, "b": [_Number.ONE]})
@example([[], {}, [1, [2]], {"a": {}}])
@example({"a": _Number.ONE, "b": (1, 2)})
def test_freeze_gives_each_node_its_type_and_order(value: Any) -> None:
    frozen = freeze(value)
    assert _shape(frozen) == _shape(_freeze_by_type(value))
    assert freeze(frozen) is frozen or isinstance(frozen, tuple)


def test_canonical_is_the_value_apart_from_its_spelling() -> None:
    a = freeze({"b": 1, "a": {"d": [1, {"f": 2, "e": 3}], "c": None}})
    b = {"a": {"c": None, "d": [1, {"e": 3, "f": 2}]}, "b": 1}
    assert canonical(a) == canonical(b) == b'{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}'
    assert same_value(a, b)
    assert a != freeze(b)  # the frozen values keep key order apart
    assert not same_value({"a": 1}, {"a": 1.0})
    assert not same_value({"a": 1}, {"a": True})
    assert not same_value([1, 2], [2, 1])


def test_canonical_sorts_values_orjson_cannot_encode_alone() -> None:
    deep: object = {"z": 1, "a": 2}
    for _ in range(300):
        deep = {"y": deep, "b": 0}
    assert same_value(deep, deep)
    assert canonical({"b": 2**70, "a": 1}) == b'{"a":1,"b":1180591620717411303424}'
