"""Keys of plain JSON (``plain_key``), and the settings read once by them: a body read
after others gives the settings (and errors) a fresh reading of it gives."""

from __future__ import annotations

import math
from typing import Any

import pytest

from harness.dialects import DialectError, get_dialect
from harness.dialects._memo import forget, plain_key

_PLAIN: list[Any] = [
    None,
    True,
    0,
    1,
    1.0,
    -0.0,
    "x",
    [],
    {},
    {"a": [1, {"b": None}], "c": "d"},
]


@pytest.mark.parametrize("value", _PLAIN)
def test_plain_values_are_keyed_by_their_compact_json(value: Any) -> None:
    import orjson

    assert plain_key(value) == orjson.dumps(value)


class _Str(str):
    pass


class _Dict(dict[str, Any]):
    pass


@pytest.mark.parametrize(
    "value",
    [
        (1, 2),
        {"a": (1,)},
        [math.nan],
        {"t": math.inf},
        [-math.inf],
        _Str("x"),
        {"a": _Str("x")},
        {_Str("a"): 1},
        _Dict(a=1),
        [_Dict()],
        {1: "a"},
        {"big": 1 << 70},
        "\ud800",
        object(),
        {"a": {1, 2}},
    ],
)
def test_values_that_encode_like_another_are_not_keyed(value: Any) -> None:
    assert plain_key(value) is None


def test_a_value_holding_itself_is_not_keyed_and_reads_as_plainly() -> None:
    cyclic: dict[str, Any] = {"a": 1}
    cyclic["self"] = cyclic
    shared: list[Any] = []
    assert plain_key(cyclic) is None
    assert plain_key({"a": shared, "b": shared}) is None  # read anew: never wrong
    body = {"messages": [{"role": "user", "content": "hi"}], "metadata": cyclic}
    for _ in range(2):
        with pytest.raises(DialectError, match="nested too deeply"):
            get_dialect("anthropic").to_request(body)


def test_a_deep_value_is_checked_without_recursion() -> None:
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    assert plain_key(deep) is None  # past orjson's depth: not keyed, and no RecursionError


_HEADS: dict[str, dict[str, Any]] = {
    "anthropic": {"messages": [{"role": "user", "content": "hi"}]},
    "openai": {"messages": [{"role": "user", "content": "hi"}]},
    "openai-responses": {"input": [{"role": "user", "content": "hi"}]},
    "gemini": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
}

_TOOLED: dict[str, dict[str, Any]] = {
    "anthropic": {"tools": [{"name": "f", "input_schema": {}, "x": 1}]},
    "openai": {"tools": [{"type": "function", "function": {"name": "f", "x": 1}}]},
    "openai-responses": {"tools": [{"type": "function", "name": "f", "x": 1}]},
    "gemini": {"tools": [{"googleSearch": {}}, {"functionDeclarations": [{"name": "f"}]}]},
}
"""Tools that reach the settings (their unknown fields, a non-function tool)."""

_SETTINGS: list[dict[str, Any]] = [
    {},
    {"model": "m", "temperature": 1},
    {"model": "m", "temperature": 1.0},
    {"model": "m", "temperature": True},
    {"temperature": 1, "model": "m"},
    {"model": "m", "temperature": math.nan},
    {"model": "m", "temperature": None},
    {"model": "m", "max_tokens": 10, "max_output_tokens": 10, "top_p": 0.5},
    {"model": "m", "max_tokens": (10,)},
    {"model": "m", "stop_sequences": ["a"], "stop": ["a"]},
    {"model": "m", "stop_sequences": ("a",), "stop": ("a",)},
    {"model": _Str("m")},
    {"model": 3},
    {"thinking": {"type": "enabled", "budget_tokens": 5}, "reasoning": {"effort": "low"}},
    {"thinking": {"type": "enabled", "budget_tokens": 5.0}, "reasoning": {"effort": 1}},
    {"tool_choice": {"type": "auto"}},
    {"tool_choice": "auto"},
    {"tool_choice": {"type": "tool", "name": "f"}},
    {"tool_choice": {"type": "function", "function": {"name": "f"}}},
    {"metadata": {"user_id": "u"}, "store": True},
    {"metadata": {"user_id": ("u",)}, "store": 1},
    {"generationConfig": {"temperature": 1, "maxOutputTokens": 5}},
    {"generationConfig": {"temperature": 1.0, "maxOutputTokens": 5.0}},
    {"generationConfig": {"temperature": 1, "maxOutputTokens": 5}, "toolConfig": {}},
    {"text": {"format": {"type": "text"}}, "output_format": {"type": "json_schema"}},
]


def _read(name: str, body: dict[str, Any]) -> str:
    """The request's settings (by repr: 1, 1.0 and True apart), or the error's message."""
    try:
        return repr(get_dialect(name).to_request(body).preset.settings)
    except DialectError as e:
        return f"error: {e}"


@pytest.mark.parametrize("name", sorted(_HEADS))
def test_settings_read_after_others_are_a_fresh_reading(name: str) -> None:
    bodies = [{**fields, **_HEADS[name]} for fields in _SETTINGS]
    bodies += [{**_HEADS[name], **fields} for fields in _SETTINGS]  # the head first
    bodies += [{**_TOOLED[name], **body} for body in bodies[: len(_SETTINGS)]]
    bodies += [{**fields, **_HEADS[name], "tools": []} for fields in _SETTINGS]
    fresh = []
    for body in bodies:
        forget()
        fresh.append(_read(name, body))
    forget()
    for _ in range(2):  # warm: every body read after the others
        assert [_read(name, body) for body in bodies] == fresh
