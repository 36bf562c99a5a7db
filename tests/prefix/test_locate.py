"""The locator on its own: byte prefixes and the first structural difference."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.prefix import common_prefix_length, first_difference


@given(st.binary(max_size=10_000), st.binary(max_size=10_000))
def test_common_prefix_length_matches_a_naive_scan(a: bytes, b: bytes) -> None:
    naive = 0
    while naive < min(len(a), len(b)) and a[naive] == b[naive]:
        naive += 1
    assert common_prefix_length(a, b) == naive


@given(st.binary(min_size=1, max_size=20_000), st.data())
def test_common_prefix_length_finds_a_planted_change(a: bytes, data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(a) - 1))
    b = a[:at] + bytes([(a[at] + 1) % 256]) + a[at + 1 :]
    assert common_prefix_length(a, b) == at
    assert common_prefix_length(a, a + b"tail") == len(a)


@pytest.mark.parametrize(
    ("a", "b", "path", "reason"),
    [
        (
            {"type": "object", "properties": {"path": {"description": "Path to the file"}}},
            {"type": "object", "properties": {"path": {"description": "Path of the file"}}},
            "t.properties.path.description",
            "text differs from byte 5 of the string on",
        ),
        (
            {"type": "object", "required": ["a"]},
            {"required": ["a"], "type": "object"},
            "t",
            "key order differs: key 0 is 'type' in the parent, 'required' in the fork",
        ),
        ({"a": 1}, {"a": 1, "b": 2}, "t", "key 'b' is added in the fork"),
        ({"a": 1, "b": 2}, {"a": 1}, "t", "key 'b' of the parent is missing in the fork"),
        (
            {"a": 1, "b": 2},
            {"a": 1, "c": 2},
            "t",
            "key 'b' of the parent is missing in the fork (fork has 'c' there)",
        ),
        ({"a": [1, 2]}, {"a": [1, 2, 3]}, "t.a", "2 items in the parent, 3 in the fork"),
        ({"a": 1}, {"a": 1.0}, "t.a", "1 in the parent, 1.0 in the fork"),
        ({"a": True}, {"a": 1}, "t.a", "a boolean in the parent, a number in the fork"),
        ({"a": "x"}, {"a": ["x"]}, "t.a", "a string in the parent, an array in the fork"),
        ({"a": [{"b": 0}]}, {"a": [{"b": 1}]}, "t.a[0].b", "0 in the parent, 1 in the fork"),
    ],
)
def test_first_difference_names_path_and_reason(
    a: object, b: object, path: str, reason: str
) -> None:
    assert first_difference(a, b, "t") == (path, reason)


def test_identical_values_have_no_difference() -> None:
    value = {"a": [1, {"b": "é"}], "c": None}
    assert first_difference(value, {"a": [1, {"b": "é"}], "c": None}, "t") is None
