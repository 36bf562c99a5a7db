"""Hypothesis strategies for the neutral model: JSON values, tools, presets, histories."""

from __future__ import annotations

import random
import string
from functools import cache, lru_cache
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
    "json_schemas",
    "json_values",
    "presets",
    "requests",
    "settings",
    "tools",
    "unicode_texts",
]

Ending = Literal["model", "model_calls", "user"]
TextStrategy = st.SearchStrategy[str]
ENDINGS: tuple[Ending, ...] = ("model", "model_calls", "user")

# What ``st.from_regex(r"[a-z][a-z0-9_]{0,15}")`` draws, built from two plain draws: the regex
# strategy re-parses its pattern on every draw and was most of the time spent drawing scenarios.
_names = st.builds(
    str.__add__,
    st.sampled_from(string.ascii_lowercase),
    st.text(alphabet=string.ascii_lowercase + string.digits + "_", max_size=15),
)
_keys = st.one_of(_names, st.text(min_size=1, max_size=8))
_texts = st.text(max_size=40)


def _non_integral(x: float) -> float:
    """``x``, or a float near it with a fractional part (every float from 2**52 up is integral)."""
    if not x.is_integer():
        return x
    return x + 0.5 if abs(x) < 2**52 else 0.5


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    # JSON does not tell 2.0 from 2 and other languages' encoders write it as 2, so a
    # language-neutral value never holds a float with an integral value.
    # Mapped, not filtered: Hypothesis draws integral floats often, and a filter that rejects them
    # made about one scenario draw in four invalid.
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(_non_integral),
    _texts,
)


def _check_sizes(
    name: str, min_size: int, max_size: int | None, *, low: str = "min_size", high: str = "max_size"
) -> None:
    """Bounds of a size, named as the caller wrote them (``low``, ``high``: the arguments)."""
    if min_size < 0:
        raise ValueError(f"{name}: {low}={min_size} must be at least 0")
    if max_size is not None and max_size < min_size:
        lower = f"{low}={min_size}" if low else f"the least, {min_size}"
        raise ValueError(f"{name}: {high}={max_size} is below {lower}")


def _check_flag(name: str, option: str, value: object) -> None:
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{name}: {option}={value!r} must be True, False or None (either)")


def _check_at_least(name: str, option: str, value: int, least: int) -> None:
    if not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: {option}={value!r} must be at least {least}")


def _flag(draw: st.DrawFn, value: bool | None) -> bool:
    """An option that is forced (True/False) or drawn (None), False first so it shrinks off."""
    return value if value is not None else draw(st.booleans())


# --- unicode-heavy text ----------------------------------------------------------------------

_ESCAPED = [chr(c) for c in range(0x20)] + ["\x7f", '"', "\\", "/", "\x85", "\u2028", "\u2029"]
_INVISIBLE = ["\ufeff", "\u200b", "\u200c", "\u200d", "\u2060", "\u00a0", "\u00ad"]
_RTL = [
    "שלום עולם",
    "مرحبا بالعالم",
    "اَلسَّلَامُ عَلَيْكُمْ",
    "\u200f",
    "\u202b",
    "\u202e",
    "\u2067",
    "\u2069",
    "\u061c",
]
_EMOJI = [
    "\U0001f600",
    "\U0001f469\u200d\U0001f4bb",  # a ZWJ sequence
    "\U0001f44d\U0001f3fd",  # a skin-tone modifier
    "\U0001f1ef\U0001f1f5",  # a flag: two regional indicators
    "\u2764\ufe0f",  # a variation selector
    "\U0001f9ea",
    "#\ufe0f\u20e3",  # a keycap
]
_PIECES = st.one_of(
    st.sampled_from(["a", "fork", " ", "\n", "Ω"]),
    st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=4),
    st.text(st.characters(min_codepoint=0x3040, max_codepoint=0x30FF), min_size=1, max_size=4),
    st.text(st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), min_size=1, max_size=3),
    st.one_of(st.sampled_from(_EMOJI), st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF)),
    st.builds(
        str.__add__,
        st.sampled_from("aeoZ"),
        st.text(st.characters(min_codepoint=0x300, max_codepoint=0x36F), min_size=1, max_size=3),
    ),
    st.sampled_from(_RTL),
    st.text(st.sampled_from(_ESCAPED + _INVISIBLE), min_size=1, max_size=3),
    # astral letters, the last scalar value and non-characters: valid UTF-8 and JSON
    st.sampled_from(["\U0001d400\U0001d7ff", "\U0010ffff", "\uffff", "\ufffe", "\ufffd"]),
)


@cache
def unicode_texts(*, min_size: int = 1, max_size: int = 40) -> st.SearchStrategy[str]:
    """Text made of pieces that often trip serializers: CJK, kana and hangul, emoji (ZWJ
    sequences, modifiers, flags, variation selectors), combining marks, right-to-left text and
    direction marks, control characters and JSON's escaped characters, invisible characters,
    astral letters. Every piece is valid UTF-8 and valid in JSON (no lone surrogates); the text is
    cut to ``max_size`` characters, which may split a sequence (still valid text)."""
    _check_sizes("unicode_texts", min_size, max_size)
    _check_at_least("unicode_texts", "max_size", max_size, 1)
    return st.lists(_PIECES, min_size=max(min_size, 1), max_size=max(min_size, 8)).map(
        lambda pieces: "".join(pieces)[:max_size]
    )


def _text_of(heavy: bool, *, min_size: int = 1) -> st.SearchStrategy[str]:
    return unicode_texts(min_size=min_size) if heavy else st.text(min_size=min_size, max_size=40)


def _unique_object(values: st.SearchStrategy[Json], max_size: int) -> st.SearchStrategy[FrozenDict]:
    return st.lists(st.tuples(_keys, values), max_size=max_size).map(
        lambda pairs: FrozenDict(
            zip(_unique_keys([k for k, _ in pairs]), [v for _, v in pairs], strict=True)
        )
    )


@cache
def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Json]:
    """Any frozen JSON value: objects (varied key order), arrays, unicode strings, numbers."""
    _check_at_least("json_values", "max_leaves", max_leaves, 1)
    return _json_trees(max_leaves)


_NODE_KINDS = st.integers(0, 3)
"""0 and 1 a scalar (half the nodes, and what a value shrinks to), 2 an array, 3 an object."""
_JSON_DEPTH = 5
_CONTAINER_SIZE = 4


@st.composite
def _json_trees(draw: st.DrawFn, max_leaves: int) -> Json:
    """A JSON value of at most ``max_leaves`` scalars, built within that budget as it is drawn
    (``st.recursive`` draws past its ``max_leaves`` and then retries: a third of all draws)."""
    return _json_node(draw, [max_leaves], 0)


def _json_node(draw: st.DrawFn, budget: list[int], depth: int) -> Json:
    kind = draw(_NODE_KINDS) if budget[0] > 1 and depth < _JSON_DEPTH else 0
    if kind < 2:
        budget[0] -= 1
        return draw(_scalars)
    size = draw(st.integers(0, min(_CONTAINER_SIZE, budget[0])))
    values = []
    for _ in range(size):
        if budget[0] <= 0:
            break
        values.append(_json_node(draw, budget, depth + 1))
    if kind == 2:
        return tuple(values)
    return FrozenDict(
        zip(
            _unique_keys(draw(st.lists(_keys, min_size=len(values), max_size=len(values)))),
            values,
            strict=True,
        )
    )


def _unique_keys(keys: list[str]) -> list[str]:
    """``keys`` made unique by suffixing repeats with ``_`` (no draw is thrown away)."""
    seen: set[str] = set()
    out = []
    for key in keys:
        while key in seen:
            key += "_"
        seen.add(key)
        out.append(key)
    return out


@cache
def json_objects(*, max_size: int = 4) -> st.SearchStrategy[FrozenDict]:
    """A frozen JSON object, e.g. call arguments or a function response."""
    _check_sizes("json_objects", 0, max_size, low="")
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


_LEAF_TYPES = ("string", "integer", "number", "boolean", "null")
_SCHEMA_NODES = 400
"""The most property schemas one drawn JSON Schema holds, however deep and wide it may be."""


def json_schemas(*, max_depth: int = 2, max_width: int = 3) -> st.SearchStrategy[FrozenDict]:
    """Object JSON Schemas for tool parameters, nested up to ``max_depth`` levels below the top
    with up to ``max_width`` properties per object: leaves with the usual keywords (enum,
    minimum, pattern, format, default), nested objects, arrays of them, ``anyOf``, a ``$defs``
    entry with a ``$ref`` to it, ``additionalProperties``; key order varies. A schema holds at
    most 400 property schemas, so deep and wide ones stay cheap to draw."""
    _check_at_least("json_schemas", "max_depth", max_depth, 0)
    _check_at_least("json_schemas", "max_width", max_width, 1)
    return _json_schemas(max_depth, max_width)


@lru_cache(maxsize=64)
def _json_schemas(max_depth: int, max_width: int) -> st.SearchStrategy[FrozenDict]:
    return _schema_trees(max_depth, max_width)


@st.composite
def _schema_trees(draw: st.DrawFn, max_depth: int, max_width: int) -> FrozenDict:
    depth = draw(st.integers(0, max_depth))
    budget = [_SCHEMA_NODES]
    defs: list[tuple[str, Json]] = []
    if depth and draw(st.booleans()):
        defs.append(("item", _object_schema(draw, depth - 1, min(max_width, 4), budget, [])))
    return _object_schema(draw, depth, max_width, budget, defs, top=True)


def _object_schema(
    draw: st.DrawFn,
    depth: int,
    width: int,
    budget: list[int],
    defs: list[tuple[str, Json]],
    *,
    top: bool = False,
) -> FrozenDict:
    names = draw(st.lists(_names, max_size=width, unique=True))
    props: list[tuple[str, Json]] = []
    nested = 2  # at most two nested schemas per object: deep, yet never exponential
    for i, name in enumerate(names):
        budget[0] -= 1
        if defs and top and i == 0:
            props.append((name, FrozenDict({"$ref": "#/$defs/item"})))
        elif depth and nested and budget[0] > 0 and draw(st.booleans()):
            nested -= 1
            props.append((name, _nested_schema(draw, depth - 1, width, budget)))
        else:
            props.append((name, draw(_leaf_schemas)))
    required = tuple(n for n in names if draw(st.booleans()))
    pairs: list[tuple[str, Json]] = [
        ("type", "object"),
        ("properties", FrozenDict(props)),
        ("required", required),
    ]
    if draw(st.booleans()):
        pairs.append(("additionalProperties", False))
    if draw(st.booleans()):
        pairs.append(("description", draw(_texts)))
    if top and defs:
        pairs.append(("$defs", FrozenDict(defs)))
    return FrozenDict(pairs[i] for i in draw(st.permutations(range(len(pairs)))))


def _nested_schema(draw: st.DrawFn, depth: int, width: int, budget: list[int]) -> Json:
    kind = draw(st.sampled_from(("object", "array", "anyOf")))
    inner = _object_schema(draw, depth, max(1, width // 2), budget, [])
    if kind == "object":
        return inner
    if kind == "array":
        return FrozenDict({"type": "array", "items": inner, "minItems": draw(st.integers(0, 3))})
    return FrozenDict({"anyOf": (inner, draw(_leaf_schemas))})


@st.composite
def _leaves(draw: st.DrawFn) -> FrozenDict:
    kind = draw(st.sampled_from(_LEAF_TYPES))
    pairs: list[tuple[str, Json]] = [("type", kind)]
    extra = draw(st.integers(0, 4))
    if extra == 1:
        pairs.append(("description", draw(_texts)))
    elif extra == 2 and kind == "string":
        pairs.append(("enum", tuple(draw(st.lists(_names, min_size=1, max_size=4, unique=True)))))
    elif extra == 2 and kind in ("integer", "number"):
        pairs.append(("minimum", draw(st.integers(-10, 10))))
    elif extra == 3 and kind == "string":
        pairs.append(draw(st.sampled_from([("pattern", "^[a-z]+$"), ("format", "uri")])))
    elif extra == 4:
        pairs.append(("default", draw(_scalars)))
    return FrozenDict(pairs[i] for i in draw(st.permutations(range(len(pairs)))))


_leaf_schemas = _leaves()


def tools(
    *, min_size: int = 0, max_size: int = 5, large_schemas: bool | None = False
) -> st.SearchStrategy[tuple[Tool, ...]]:
    """Ordered tool declarations with unique names and nested, key-order-varied schemas.

    ``large_schemas`` gives each tool a deep and wide schema (``json_schemas(max_depth=6,
    max_width=24)``); False (default) rules them out, None draws either for the whole list.
    """
    _check_sizes("tools", min_size, max_size)
    _check_flag("tools", "large_schemas", large_schemas)
    if large_schemas is None:
        return st.booleans().flatmap(lambda large: _tools(min_size, max_size, large))
    return _tools(min_size, max_size, large_schemas)


@lru_cache(maxsize=64)
def _tools(min_size: int, max_size: int, large: bool) -> st.SearchStrategy[tuple[Tool, ...]]:
    schemas = json_schemas(max_depth=6, max_width=24) if large else _schemas(2)
    one = st.builds(
        Tool,
        name=_names,
        description=st.one_of(st.none(), _texts),
        parameters=st.one_of(st.none(), schemas),
    )
    return st.lists(one, min_size=min_size, max_size=max_size, unique_by=lambda t: t.name).map(
        tuple
    )


@cache
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
    _check_sizes("presets", min_tools, max_tools, low="min_tools", high="max_tools")
    _check_sizes("presets", 0, max_system_blocks, low="", high="max_system_blocks")
    _check_flag("presets", "large_schemas", large_schemas)
    _check_flag("presets", "unicode_heavy", unicode_heavy)
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
    text = unicode_texts(max_size=60) if unicode_heavy else st.text(min_size=1, max_size=60)
    return st.builds(
        Preset,
        system=st.lists(text, max_size=max_system_blocks).map(tuple),
        tools=tools(min_size=min_tools, max_size=max_tools, large_schemas=large_schemas),
        settings=settings(),
    )


@st.composite
def _model_parts(
    draw: st.DrawFn, tool_names: tuple[str, ...], calls: bool, turn: int, text: TextStrategy
) -> tuple[Part, ...]:
    parts: list[Part] = []
    if draw(st.booleans()):
        parts.append(Thinking(draw(_texts), signature=draw(st.one_of(st.none(), _names))))
    if not calls or draw(st.booleans()):
        parts.append(Text(draw(text)))
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


def _user_text(draw: st.DrawFn, text: TextStrategy) -> Part:
    if draw(st.integers(0, 9)) == 0:
        return Image(mime_type="image/png", data="iVBORw0KGgo=")
    return Text(draw(text))


_DRAWN_TURNS = 8
"""Histories of up to this many turns are drawn message by message. A longer one builds all but
its last ``_TAIL`` turns from a small drawn vocabulary (texts, JSON objects) and a drawn seed:
hundreds of messages then cost a few hundred bytes of Hypothesis choices (a draw is capped at
8 KiB of them) and milliseconds, and still shrink (fewer turns, seed 0, the vocabulary "0")."""
_TAIL = 4


def histories(
    *,
    tool_names: tuple[str, ...] = ("search", "read_file"),
    ending: Ending | None = None,
    min_turns: int = 1,
    max_turns: int = 6,
    unicode_heavy: bool | None = False,
) -> st.SearchStrategy[tuple[Message, ...]]:
    """An alternating user/model history starting with a user message.

    Every model call is answered, in the next user message, by exactly one response with
    the same id and name. ``ending`` picks how it ends (docs/protocol.md): ``"model"`` (no calls),
    ``"model_calls"`` or ``"user"``; any of the three when None. A turn is a user message and
    the model's reply; ``max_turns`` may be in the hundreds (histories longer than 8 turns are
    built from a drawn vocabulary and seed, see ``_DRAWN_TURNS``). ``unicode_heavy`` writes
    the texts with ``unicode_texts``: True forces it, False (default) rules it out, None draws.
    """
    if ending is not None and ending not in ENDINGS:
        raise ValueError(f"histories: ending={ending!r} is not one of {ENDINGS}")
    if min_turns < 1:
        raise ValueError(f"histories: min_turns={min_turns} must be at least 1")
    _check_sizes("histories", min_turns, max_turns, low="min_turns", high="max_turns")
    _check_flag("histories", "unicode_heavy", unicode_heavy)
    if isinstance(tool_names, str) or not all(isinstance(n, str) and n for n in tool_names):
        raise ValueError(f"histories: tool_names={tool_names!r} must be non-empty names")
    return _history_strategy(tuple(tool_names), ending, min_turns, max_turns, unicode_heavy)


@lru_cache(maxsize=512)
def _history_strategy(
    tool_names: tuple[str, ...],
    ending: Ending | None,
    min_turns: int,
    max_turns: int,
    unicode_heavy: bool | None,
) -> st.SearchStrategy[tuple[Message, ...]]:
    return _histories(tool_names, ending, min_turns, max_turns, unicode_heavy)


@st.composite
def _histories(
    draw: st.DrawFn,
    tool_names: tuple[str, ...],
    ending: Ending | None,
    min_turns: int,
    max_turns: int,
    unicode_heavy: bool | None,
) -> tuple[Message, ...]:
    end = ending or draw(st.sampled_from(ENDINGS))
    turns = draw(st.integers(min_turns, max_turns))
    text = _text_of(_flag(draw, unicode_heavy))
    messages: list[Message] = []
    pending: tuple[FunctionCall, ...] = ()
    first = 0
    if turns > _DRAWN_TURNS:
        first = turns - _TAIL
        messages, pending = _filler(draw, tool_names, first, text)
    for turn in range(first, turns):
        user_parts: list[Part] = [
            FunctionResponse(name=c.name, response=draw(json_objects()), id=c.id) for c in pending
        ]
        if not pending or draw(st.booleans()):
            user_parts.append(_user_text(draw, text))
        messages.append(Message("user", tuple(user_parts)))
        last = turn == turns - 1
        if last and end == "user":
            break
        calls = end == "model_calls" if last else draw(st.booleans())
        parts = draw(_model_parts(tool_names, calls, turn, text))
        messages.append(Message("model", parts))
        pending = tuple(p for p in parts if isinstance(p, FunctionCall))
    return tuple(messages)


_IMAGE = Image(mime_type="image/png", data="iVBORw0KGgo=")
_CALLS_PER_MESSAGE = (1, 1, 1, 2, 3)


def _filler(
    draw: st.DrawFn, tool_names: tuple[str, ...], turns: int, text: TextStrategy
) -> tuple[list[Message], tuple[FunctionCall, ...]]:
    """``turns`` valid turns built from a drawn vocabulary and seed, and their open calls."""
    words = draw(st.lists(text, min_size=1, max_size=8), label="vocabulary")
    objects = draw(st.lists(json_objects(), min_size=1, max_size=4), label="objects")
    rng = random.Random(draw(st.integers(0, 2**32 - 1), label="seed"))
    names = tool_names or ("tool",)
    messages: list[Message] = []
    pending: tuple[FunctionCall, ...] = ()
    for turn in range(turns):
        user: list[Part] = [FunctionResponse(c.name, rng.choice(objects), c.id) for c in pending]
        if not pending or rng.random() < 0.3:
            user.append(_IMAGE if rng.random() < 0.05 else Text(rng.choice(words)))
        messages.append(Message("user", tuple(user)))
        model: list[Part] = []
        if rng.random() < 0.25:
            model.append(Thinking(rng.choice(words), signature=f"sig_{turn}"))
        calls = rng.random() < 0.4
        if not calls or rng.random() < 0.5:
            model.append(Text(rng.choice(words)))
        if calls:
            for _ in range(rng.choice(_CALLS_PER_MESSAGE)):
                model.append(
                    FunctionCall(
                        rng.choice(names), rng.choice(objects), f"call_{turn}_{len(model)}"
                    )
                )
        messages.append(Message("model", tuple(model)))
        pending = tuple(p for p in model if isinstance(p, FunctionCall))
    return messages, pending


def requests(
    *, ending: Ending | None = None, max_turns: int = 6, max_tools: int = 5
) -> st.SearchStrategy[Request]:
    """A whole request head: a preset and a history that calls only the preset's tools."""
    _check_at_least("requests", "max_turns", max_turns, 1)
    _check_at_least("requests", "max_tools", max_tools, 0)
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
