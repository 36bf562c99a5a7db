"""JSON values decoded from a byte string and a text: every input decodes to a valid value
within its bounds, zeros to the simplest one, and every kind is reachable."""

import math

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.generation._json import JsonSource, unique_keys
from harness.model import FrozenDict, Json, freeze
from harness.strategies import json_objects, json_values


def leaves(value: Json) -> int:
    if isinstance(value, dict):
        return sum(leaves(v) for v in value.values())
    if isinstance(value, tuple):
        return sum(leaves(v) for v in value)
    return 1


def depth(value: Json) -> int:
    if isinstance(value, dict | tuple):
        inner = value.values() if isinstance(value, dict) else value
        return 1 + max((depth(v) for v in inner), default=0)
    return 0


def check_valid(value: Json) -> None:
    """Frozen, JSON-encodable and read back equal; floats finite and never integral."""
    assert freeze(orjson.loads(orjson.dumps(value))) == value
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            assert isinstance(v, FrozenDict)
            assert all(isinstance(k, str) and k for k in v)
            stack.extend(v.values())
        elif isinstance(v, tuple):
            stack.extend(v)
        elif isinstance(v, float):
            assert math.isfinite(v)
            assert not v.is_integer()
        elif isinstance(v, int) and not isinstance(v, bool):
            assert abs(v) <= 2**53


@given(st.binary(max_size=200), st.text(max_size=60), st.integers(1, 12), st.integers(0, 6))
def test_any_bytes_decode_to_valid_values_within_their_bounds(
    data: bytes, text: str, max_leaves: int, max_size: int
) -> None:
    value = JsonSource(data, text).value(max_leaves)
    check_valid(value)
    assert leaves(value) <= max_leaves or value in ((), FrozenDict())
    assert depth(value) <= 6
    obj = JsonSource(data, text).obj(max_size)
    check_valid(obj)
    assert isinstance(obj, FrozenDict)
    assert len(obj) <= max_size


def test_zeros_decode_to_the_simplest_values() -> None:
    assert JsonSource(b"", "").obj() == FrozenDict()
    assert JsonSource(b"\0" * 9, "abc").obj() == FrozenDict()
    assert JsonSource(b"", "").value(12) is None
    assert JsonSource(b"\0" * 9, "").value(12) is None


def test_every_kind_of_value_is_reachable() -> None:
    kinds = set()
    for code in range(256):
        for extra in (b"", b"\x07" * 9, b"\xff" * 9):
            value = JsonSource(bytes([code]) + extra, "text pool").value(12)
            kinds.add(type(value).__name__)
            check_valid(value)
    assert kinds >= {"NoneType", "bool", "int", "float", "str", "tuple", "FrozenDict"}


def test_objects_in_a_row_share_one_byte_string_and_text() -> None:
    # two keys: "a" (one character of the text), an integer node (kind 2, payload 3: -2);
    # "bc", null; then one key: "def", a string node (kind 4) of up to 4 characters: "gh"
    data = bytes([2, 10, 0x40 | 3, 11, 0, 1, 12, 0x80 | 4])
    source = JsonSource(data, "abcdefgh")
    assert source.obj() == FrozenDict({"a": -2, "bc": None})
    assert source.obj() == FrozenDict({"def": "gh"})
    assert source.obj() == FrozenDict()


def test_repeated_keys_are_made_unique_without_dropping_any() -> None:
    assert unique_keys(["a", "b", "a", "a", "a_"]) == ["a", "b", "a_", "a__", "a___"]


@given(json_values())
def test_json_values_are_valid(value: Json) -> None:
    check_valid(value)
    assert leaves(value) <= 12 or value in ((), FrozenDict())


@given(json_objects(max_size=2))
def test_json_objects_have_at_most_max_size_keys(value: FrozenDict) -> None:
    check_valid(value)
    assert len(value) <= 2


@pytest.mark.parametrize("max_size", [0, 1, 4])
def test_json_objects_of_max_size_0_are_empty_and_others_reach_the_bound(max_size: int) -> None:
    sizes = {len(JsonSource(bytes([n, 1, 0] * 5), "").obj(max_size)) for n in range(10)}
    assert max(sizes) == max_size
