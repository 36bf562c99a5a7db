"""Hypothesis strategies for the neutral model: JSON values, tools, presets, histories."""

from __future__ import annotations

from functools import cache
from typing import Literal

from hypothesis import strategies as st

from ..model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Json,
    Message,
    Part,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
)

__all__ = [
    "Ending",
    "histories",
    "json_objects",
    "json_values",
    "presets",
    "requests",
    "settings",
    "tools",
]

Ending = Literal["model", "model_calls", "user"]
ENDINGS: tuple[Ending, ...] = ("model", "model_calls", "user")

_names = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)
_keys = st.one_of(_names, st.text(min_size=1, max_size=8))
_texts = st.text(max_size=40)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    # JSON does not tell 2.0 from 2 and other languages' encoders write it as 2, so a
    # language-neutral value never holds a float with an integral value.
    st.floats(allow_nan=False, allow_infinity=False, width=64).filter(lambda x: not x.is_integer()),
    _texts,
)


def _check_sizes(name: str, min_size: int, max_size: int | None) -> None:
    if min_size < 0:
        raise ValueError(f"{name}: min_size={min_size} must be at least 0")
    if max_size is not None and max_size < min_size:
        raise ValueError(f"{name}: max_size={max_size} is below min_size={min_size}")


def _unique_object(values: st.SearchStrategy[Json], max_size: int) -> st.SearchStrategy[FrozenDict]:
    return st.lists(st.tuples(_keys, values), max_size=max_size, unique_by=lambda kv: kv[0]).map(
        FrozenDict
    )


@cache
def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Json]:
    """Any frozen JSON value: objects (varied key order), arrays, unicode strings, numbers."""
    if max_leaves < 1:
        raise ValueError(f"json_values: max_leaves={max_leaves} must be at least 1")
    return st.recursive(
        _scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4).map(tuple), _unique_object(inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


@cache
def json_objects(*, max_size: int = 4) -> st.SearchStrategy[FrozenDict]:
    """A frozen JSON object, e.g. call arguments or a function response."""
    _check_sizes("json_objects", 0, max_size)
    return _unique_object(json_values(max_leaves=6), max_size=max_size)


@cache
def _schemas(depth: int) -> st.SearchStrategy[FrozenDict]:
    leaf = st.sampled_from(["string", "integer", "number", "boolean"]).flatmap(
        lambda t: st.fixed_dictionaries({"type": st.just(t)}, optional={"description": _texts}).map(
            lambda d: FrozenDict(d.items())
        )
    )
    if depth == 0:
        return leaf
    child = st.one_of(leaf, _schemas(depth - 1))
    obj = st.lists(st.tuples(_names, child), max_size=3, unique_by=lambda kv: kv[0]).flatmap(
        lambda props: st.permutations(
            [
                ("type", "object"),
                ("properties", FrozenDict(props)),
                ("required", tuple(k for k, _ in props[:1])),
            ]
        ).map(FrozenDict)
    )
    arr = child.map(lambda items: FrozenDict({"type": "array", "items": items}))
    return st.one_of(obj, arr)


def tools(*, min_size: int = 0, max_size: int = 5) -> st.SearchStrategy[tuple[Tool, ...]]:
    """Ordered tool declarations with unique names and nested, key-order-varied schemas."""
    _check_sizes("tools", min_size, max_size)
    one = st.builds(
        Tool,
        name=_names,
        description=st.one_of(st.none(), _texts),
        parameters=st.one_of(st.none(), _schemas(2)),
    )
    return st.lists(one, min_size=min_size, max_size=max_size, unique_by=lambda t: t.name).map(
        tuple
    )


def settings() -> st.SearchStrategy[Settings]:
    """Request settings with any subset of the named fields set."""
    return st.builds(
        Settings,
        model=st.one_of(st.none(), _names),
        temperature=st.one_of(st.none(), st.sampled_from([0.0, 0.2, 0.7, 1.0])),
        top_p=st.one_of(st.none(), st.sampled_from([0.5, 0.9, 1.0])),
        top_k=st.one_of(st.none(), st.integers(1, 100)),
        max_output_tokens=st.one_of(st.none(), st.integers(1, 65536)),
        stop=st.one_of(st.none(), st.lists(_names, min_size=1, max_size=3).map(tuple)),
        thinking=st.one_of(
            st.none(),
            st.builds(
                ThinkingConfig,
                mode=st.sampled_from(["enabled", None]),
                budget_tokens=st.one_of(st.none(), st.integers(1024, 32768)),
                effort=st.one_of(st.none(), st.sampled_from(["low", "medium", "high"])),
            ),
        ),
        tool_choice=st.one_of(
            st.none(),
            st.sampled_from([ToolChoice("auto"), ToolChoice("none"), ToolChoice("required")]),
        ),
    )


def presets(
    *, min_tools: int = 0, max_tools: int = 5, max_system_blocks: int = 2
) -> st.SearchStrategy[Preset]:
    """A system instruction (0..max blocks), ordered tools and settings."""
    _check_sizes("presets", min_tools, max_tools)
    _check_sizes("presets", 0, max_system_blocks)
    return st.builds(
        Preset,
        system=st.lists(st.text(min_size=1, max_size=60), max_size=max_system_blocks).map(tuple),
        tools=tools(min_size=min_tools, max_size=max_tools),
        settings=settings(),
    )


@st.composite
def _model_parts(
    draw: st.DrawFn, tool_names: tuple[str, ...], calls: bool, turn: int
) -> tuple[Part, ...]:
    parts: list[Part] = []
    if draw(st.booleans()):
        parts.append(Thinking(draw(_texts), signature=draw(st.one_of(st.none(), _names))))
    if not calls or draw(st.booleans()):
        parts.append(Text(draw(st.text(min_size=1, max_size=40))))
    if calls:
        names = tool_names or ("tool",)
        for _ in range(draw(st.integers(1, 3))):
            parts.append(
                FunctionCall(
                    name=draw(st.sampled_from(names)),
                    args=draw(json_objects()),
                    id=f"call_{turn}_{len(parts)}",
                )
            )
    return tuple(parts)


def _user_text(draw: st.DrawFn) -> Part:
    if draw(st.integers(0, 9)) == 0:
        return Image(mime_type="image/png", data="iVBORw0KGgo=")
    return Text(draw(st.text(min_size=1, max_size=40)))


def histories(
    *,
    tool_names: tuple[str, ...] = ("search", "read_file"),
    ending: Ending | None = None,
    min_turns: int = 1,
    max_turns: int = 6,
) -> st.SearchStrategy[tuple[Message, ...]]:
    """An alternating user/model history starting with a user message.

    Every model call is answered, in the next user message, by exactly one response with
    the same id and name. ``ending`` picks how it ends (SPEC §5.2): ``"model"`` (no calls),
    ``"model_calls"`` or ``"user"``; any of the three when None.
    """
    if ending is not None and ending not in ENDINGS:
        raise ValueError(f"histories: ending={ending!r} is not one of {ENDINGS}")
    if min_turns < 1:
        raise ValueError("histories: min_turns must be at least 1")
    _check_sizes("histories", min_turns, max_turns)
    return _histories(tool_names, ending, min_turns, max_turns)


@st.composite
def _histories(
    draw: st.DrawFn,
    tool_names: tuple[str, ...],
    ending: Ending | None,
    min_turns: int,
    max_turns: int,
) -> tuple[Message, ...]:
    end = ending or draw(st.sampled_from(ENDINGS))
    turns = draw(st.integers(min_turns, max_turns))
    messages: list[Message] = []
    pending: tuple[FunctionCall, ...] = ()
    for turn in range(turns):
        user_parts: list[Part] = [
            FunctionResponse(name=c.name, response=draw(json_objects()), id=c.id) for c in pending
        ]
        if not pending or draw(st.booleans()):
            user_parts.append(_user_text(draw))
        messages.append(Message("user", tuple(user_parts)))
        last = turn == turns - 1
        if last and end == "user":
            break
        calls = end == "model_calls" if last else draw(st.booleans())
        parts = draw(_model_parts(tool_names, calls, turn))
        messages.append(Message("model", parts))
        pending = tuple(p for p in parts if isinstance(p, FunctionCall))
    return tuple(messages)


def requests(
    *, ending: Ending | None = None, max_turns: int = 6, max_tools: int = 5
) -> st.SearchStrategy[Request]:
    """A whole request head: a preset and a history that calls only the preset's tools."""
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
