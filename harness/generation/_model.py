"""Hypothesis strategies for a request's preset: tools, settings, presets, and whole requests.

A tool is one drawn number: whether it has a description and parameters, a large schema's size,
its name, and the seed of its texts and schema (``tool_of``); settings are a mask of the fields
set and a seed for their values, drawn in one number with the preset's shape. Simple choices
come first: no description, no parameters, no field.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache, lru_cache
from typing import Literal

from hypothesis import strategies as st

from ..model import Preset, Request, Settings, ThinkingConfig, Tool, ToolChoice
from ._checks import check_at_least, check_flag, check_sizes
from ._histories import Ending, histories
from ._json import unique_keys
from ._schemas import plain_schema, schema_of
from ._sources import Dice, between, texts
from ._text import NAME_CODES, dice_name, dice_text, draw_text, name_of

__all__ = [
    "draw_preset",
    "draw_settings",
    "draw_tools",
    "presets",
    "requests",
    "settings",
    "settings_of",
    "tool_of",
    "tools",
]

_DETAILS = 4
"""A tool's details, the low digit of its number: bit 0, a description; bit 1, parameters."""
_SETTINGS = 2**32
"""How many numbers settings are: the fields set (the low eight bits), the seed of their values
(all of it)."""


def tools(
    *, min_size: int = 0, max_size: int = 5, large_schemas: bool | None = False
) -> st.SearchStrategy[tuple[Tool, ...]]:
    """Ordered tool declarations with unique names and nested, key-order-varied schemas.

    ``large_schemas`` gives each tool a deep and wide schema (``json_schemas(max_depth=6,
    max_width=24)``); False (default) rules them out, None draws either for the whole list.
    """
    check_sizes("tools", min_size, max_size)
    check_flag("tools", "large_schemas", large_schemas)
    if large_schemas is None:
        return st.booleans().flatmap(lambda large: _tools(min_size, max_size, large))
    return _tools(min_size, max_size, large_schemas)


@lru_cache(maxsize=64)
def _tools(min_size: int, max_size: int, large: bool) -> st.SearchStrategy[tuple[Tool, ...]]:
    return st.composite(draw_tools)(min_size, max_size, large)


_LARGE_DEPTH = 6
_LARGE_WIDTH = 24
_LARGE_SHAPES = (_LARGE_DEPTH + 1) * (_LARGE_WIDTH + 1)
"""A large schema's depth and width, the digit after the details when schemas are large."""


def draw_tools(
    draw: st.DrawFn, min_size: int, max_size: int, large: bool, count: int | None = None
) -> tuple[Tool, ...]:
    """Tools as ``tools`` draws them, inside another strategy's draw: one number per tool
    (``tool_of``); ``count`` of them when the caller has drawn it."""
    codes = _tool_codes(large)
    drawn = [
        tool_of(draw(codes), large)
        for _ in range(draw(between(min_size, max_size)) if count is None else count)
    ]
    names = unique_keys([t.name for t in drawn])
    return tuple(
        t if n == t.name else replace(t, name=n) for n, t in zip(names, drawn, strict=True)
    )


def tool_of(code: int, large: bool) -> Tool:
    """The tool numbered ``code``: its low digit the details (bit 0 a description, bit 1
    parameters), then with ``large`` a large schema's depth and width, then its name
    (``name_of``); the whole number seeds the description and the schema. 0 is a tool
    ``"a"`` with neither."""
    rest, details = divmod(code, _DETAILS)
    shape = 0
    if large:
        rest, shape = divmod(rest, _LARGE_SHAPES)
    dice = Dice(code)
    description = dice_text(dice, 40) if details & 1 else None
    parameters = None
    if details & 2 and large:
        depth, width = divmod(shape, _LARGE_WIDTH + 1)
        parameters = schema_of(depth, width, code)
    elif details & 2:
        parameters = plain_schema(code)
    return Tool(name_of(rest), description, parameters)


@cache
def _tool_codes(large: bool) -> st.SearchStrategy[int]:
    return between(0, _DETAILS * (_LARGE_SHAPES if large else 1) * NAME_CODES - 1)


_TEMPERATURES = (0.0, 0.2, 0.7, 1.0)
_TOP_PS = (0.5, 0.9, 1.0)
_EFFORTS = (None, "low", "medium", "high")
_MODES: tuple[Literal["enabled"] | None, ...] = ("enabled", None)
_CHOICES = (ToolChoice("auto"), ToolChoice("none"), ToolChoice("required"))


def settings_of(code: int) -> Settings:
    """The settings whose fields the low eight bits of ``code`` set (bit 0 the model, then
    temperature, top_p, top_k, max_output_tokens, stop, thinking, tool_choice), their values
    made by a dice of seed ``code``: one number, none set for 0."""
    mask = code & 0xFF
    dice = Dice(code)

    def when(bit: int) -> bool:
        return bool(mask >> bit & 1)

    thinking = None
    if when(6):
        budget = dice.between(1024, 32768) if dice.chance(0.5) else None
        mode = dice.pick(_MODES)
        thinking = ThinkingConfig(mode=mode, budget_tokens=budget, effort=dice.pick(_EFFORTS))
    return Settings(
        model=dice_name(dice) if when(0) else None,
        temperature=dice.pick(_TEMPERATURES) if when(1) else None,
        top_p=dice.pick(_TOP_PS) if when(2) else None,
        top_k=dice.between(1, 100) if when(3) else None,
        max_output_tokens=dice.between(1, 65536) if when(4) else None,
        stop=tuple(dice_name(dice) for _ in range(dice.between(1, 3))) if when(5) else None,
        thinking=thinking,
        tool_choice=dice.pick(_CHOICES) if when(7) else None,
    )


@cache
def settings() -> st.SearchStrategy[Settings]:
    """Request settings with any subset of the named fields set."""
    return st.composite(draw_settings)()


def draw_settings(draw: st.DrawFn) -> Settings:
    """Settings as ``settings`` draws them, from one number (``settings_of``)."""
    return settings_of(draw(between(0, _SETTINGS - 1)))


def presets(
    *,
    min_tools: int = 0,
    max_tools: int = 5,
    max_system_blocks: int = 2,
    large_schemas: bool | None = False,
    unicode_heavy: bool | None = False,
) -> st.SearchStrategy[Preset]:
    """A system instruction (0..max blocks), ordered tools and settings.

    ``large_schemas`` as for ``tools``; ``unicode_heavy`` writes the system blocks with
    ``unicode_texts``. False (default) rules an option out, True forces it, None draws either.
    """
    check_sizes("presets", min_tools, max_tools, low="min_tools", high="max_tools")
    check_sizes("presets", 0, max_system_blocks, low="", high="max_system_blocks")
    check_flag("presets", "large_schemas", large_schemas)
    check_flag("presets", "unicode_heavy", unicode_heavy)
    return _presets(min_tools, max_tools, max_system_blocks, large_schemas, unicode_heavy)


@lru_cache(maxsize=64)
def _presets(
    min_tools: int,
    max_tools: int,
    max_system_blocks: int,
    large_schemas: bool | None,
    unicode_heavy: bool | None,
) -> st.SearchStrategy[Preset]:
    if unicode_heavy is None:
        return st.booleans().flatmap(
            lambda heavy: _presets(min_tools, max_tools, max_system_blocks, large_schemas, heavy)
        )
    if large_schemas is None:
        return st.booleans().flatmap(
            lambda large: _presets(min_tools, max_tools, max_system_blocks, large, unicode_heavy)
        )
    return st.composite(draw_preset)(
        min_tools, max_tools, max_system_blocks, large_schemas, unicode_heavy
    )


def draw_preset(
    draw: st.DrawFn,
    min_tools: int,
    max_tools: int,
    max_system_blocks: int,
    large: bool,
    heavy: bool,
) -> Preset:
    """A preset as ``presets`` draws it, inside another strategy's draw: its shape and its
    settings are one number (how many system blocks, then tools beyond the least, then the
    settings' code, ``settings_of``)."""
    blocks = max_system_blocks + 1
    shapes = blocks * (max_tools - min_tools + 1)
    code, shape = divmod(draw(between(0, shapes * _SETTINGS - 1)), shapes)
    tools_beyond, count = divmod(shape, blocks)
    if heavy:
        system = tuple(draw_text(draw, True, 60) for _ in range(count))
    else:
        system = tuple(draw(texts(1, 60)) for _ in range(count))
    declared = draw_tools(draw, min_tools, max_tools, large, min_tools + tools_beyond)
    return Preset(system, declared, settings_of(code))


def requests(
    *, ending: Ending | None = None, max_turns: int = 6, max_tools: int = 5
) -> st.SearchStrategy[Request]:
    """A whole request head: a preset and a history that calls only the preset's tools."""
    check_at_least("requests", "max_turns", max_turns, 1)
    check_at_least("requests", "max_tools", max_tools, 0)
    histories(ending=ending, max_turns=max_turns)  # validates the arguments now
    return _requests(presets(max_tools=max_tools), ending, max_turns)


@st.composite
def _requests(
    draw: st.DrawFn,
    preset_strategy: st.SearchStrategy[Preset],
    ending: Ending | None,
    max_turns: int,
) -> Request:
    preset = draw(preset_strategy)
    names = tuple(t.name for t in preset.tools) or ("tool",)
    history = draw(histories(tool_names=names, ending=ending, max_turns=max_turns))
    return Request(preset=preset, history=history)
