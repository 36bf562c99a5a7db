"""The canonical form of an envelope: keys in one order, content kept as sent."""

from __future__ import annotations

from harness.dialects._canonical import canonical, without


def test_keys_are_sorted_at_every_depth() -> None:
    value = {"b": 1, "a": [{"d": 2, "c": 3}]}
    assert list(canonical(value)) == ["a", "b"]
    assert list(canonical(value)["a"][0]) == ["c", "d"]


def test_type_role_name_and_id_come_first() -> None:
    value = {"input_schema": {}, "description": "d", "name": "n", "id": "i", "type": "t"}
    assert list(canonical(value)) == ["type", "name", "id", "description", "input_schema"]


def test_kept_keys_keep_the_order_they_were_sent_in() -> None:
    value = {"type": "tool_use", "input": {"z": 1, "a": {"y": 2, "b": 3}}}
    out = canonical(value, keep={"input"})
    assert list(out) == ["type", "input"]
    assert list(out["input"]) == ["z", "a"]
    assert list(out["input"]["a"]) == ["y", "b"]


def test_without_copies_only_when_a_key_goes() -> None:
    value = {"a": 1}
    assert without(value, "b") is value
    assert without({"a": 1, "b": 2}, "b") == {"a": 1}
