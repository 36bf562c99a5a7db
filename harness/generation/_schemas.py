"""JSON Schemas for tool parameters, built by a ``Dice`` from a few drawn numbers (a depth, a
width, a seed): a deep and wide schema is hundreds of nodes, which Hypothesis would otherwise
draw one by one. Seed 0 is the simplest schema, so a schema shrinks with its seed."""

from __future__ import annotations

from functools import lru_cache

from hypothesis import strategies as st

from ..model import FrozenDict, Json
from ._checks import check_at_least
from ._json import unique_keys
from ._sources import Dice
from ._text import dice_name, dice_text

__all__ = ["json_schemas", "plain_schema"]

_LEAF_TYPES = ("string", "integer", "number", "boolean", "null")
_PLAIN_TYPES = ("string", "integer", "number", "boolean")
_SCHEMA_NODES = 400
"""How many property schemas a drawn JSON Schema holds before it nests no further: objects begun
by then still get all their properties, so a very wide schema holds more."""
_SCALARS: tuple[Json, ...] = (None, True, False, 0, -7, 2**31, 0.5, "", "default", "ü\n")


def _ordered(dice: Dice, pairs: list[tuple[str, Json]]) -> FrozenDict:
    """An object of ``pairs`` in an order of the dice's: key order is part of a schema."""
    return FrozenDict(dice.shuffled(pairs))


def _names(dice: Dice, count: int) -> list[str]:
    return unique_keys([dice_name(dice) for _ in range(count)])


def _leaf(dice: Dice, types: tuple[str, ...] = _LEAF_TYPES) -> FrozenDict:
    kind = dice.pick(types)
    pairs: list[tuple[str, Json]] = [("type", kind)]
    extra = dice.below(5)
    if extra == 1:
        pairs.append(("description", dice_text(dice, 40)))
    elif extra == 2 and kind == "string":
        pairs.append(("enum", tuple(_names(dice, dice.between(1, 4)))))
    elif extra == 2 and kind in ("integer", "number"):
        pairs.append(("minimum", dice.between(-10, 10)))
    elif extra == 3 and kind == "string":
        pairs.append(dice.pick([("pattern", "^[a-z]+$"), ("format", "uri")]))
    elif extra == 4:
        pairs.append(("default", dice.pick(_SCALARS)))
    return _ordered(dice, pairs)


def _count(dice: Dice, width: int) -> int:
    """How many properties an object has: a few usually, up to ``width`` now and then."""
    if width <= 0:
        return 0
    return dice.between(0, width) if dice.chance(0.3) else dice.between(0, min(width, 4))


def _object(
    dice: Dice,
    depth: int,
    width: int,
    budget: list[int],
    defs: bool,
    *,
    count: int | None = None,
) -> FrozenDict:
    names = _names(dice, _count(dice, width) if count is None else count)
    props: list[tuple[str, Json]] = []
    nested = 2  # at most two nested schemas per object: deep, yet never exponential
    for i, name in enumerate(names):
        budget[0] -= 1
        if defs and i == 0:
            props.append((name, FrozenDict({"$ref": "#/$defs/item"})))
        elif depth and nested and budget[0] > 0 and dice.chance(0.5):
            nested -= 1
            props.append((name, _nested(dice, depth - 1, width, budget)))
        else:
            props.append((name, _leaf(dice)))
    pairs: list[tuple[str, Json]] = [
        ("type", "object"),
        ("properties", FrozenDict(props)),
        ("required", tuple(n for n in names if dice.chance(0.5))),
    ]
    if dice.chance(0.5):
        pairs.append(("additionalProperties", False))
    if dice.chance(0.5):
        pairs.append(("description", dice_text(dice, 40)))
    return _ordered(dice, pairs)


def _nested(dice: Dice, depth: int, width: int, budget: list[int]) -> Json:
    kind = dice.pick(("object", "array", "anyOf"))
    inner = _object(dice, depth, max(1, width // 2), budget, False)
    if kind == "object":
        return inner
    if kind == "array":
        return FrozenDict({"type": "array", "items": inner, "minItems": dice.between(0, 3)})
    return FrozenDict({"anyOf": (inner, _leaf(dice))})


def schema_of(depth: int, width: int, seed: int) -> FrozenDict:
    """The object schema of at most ``depth`` levels below the top that the three numbers
    stand for; its top object has ``width`` properties, and a ``$defs`` entry now and then."""
    dice = Dice(seed)
    budget = [_SCHEMA_NODES]
    item = None
    if depth and dice.chance(0.5):
        item = _object(dice, depth - 1, min(width, 4), budget, False)
    top = _object(dice, depth, width, budget, item is not None, count=width)
    if item is None:
        return top
    return FrozenDict({**top, "$defs": FrozenDict({"item": item})})


def json_schemas(*, max_depth: int = 2, max_width: int = 3) -> st.SearchStrategy[FrozenDict]:
    """Object JSON Schemas for tool parameters, nested up to ``max_depth`` levels below the top
    with up to ``max_width`` properties per object: leaves with the usual keywords (enum,
    minimum, pattern, format, default), nested objects, arrays of them, ``anyOf``, a ``$defs``
    entry with a ``$ref`` to it, ``additionalProperties``; key order varies. Nesting stops once a
    schema holds 400 property schemas, so deep ones stay cheap to draw (objects begun by then
    still get all their properties: a very wide schema holds more)."""
    check_at_least("json_schemas", "max_depth", max_depth, 0)
    check_at_least("json_schemas", "max_width", max_width, 1)
    return _json_schemas(max_depth, max_width)


@lru_cache(maxsize=64)
def _json_schemas(max_depth: int, max_width: int) -> st.SearchStrategy[FrozenDict]:
    return st.builds(
        schema_of, st.integers(0, max_depth), st.integers(0, max_width), st.integers(0, 2**32 - 1)
    )


def plain_schema(seed: int) -> FrozenDict:
    """An ordinary tool's parameters, two levels deep at most: an object of up to three
    properties (leaves with a type and maybe a description, or objects and arrays of them),
    or now and then an array; an object with no properties for seed 0."""
    return _plain(Dice(seed), 2)


def _plain_leaf(dice: Dice) -> FrozenDict:
    pairs: list[tuple[str, Json]] = [("type", dice.pick(_PLAIN_TYPES))]
    if dice.chance(0.5):
        pairs.append(("description", dice_text(dice, 40)))
    return _ordered(dice, pairs)


def _plain(dice: Dice, depth: int) -> FrozenDict:
    def child() -> FrozenDict:
        return _plain(dice, depth - 1) if depth > 1 and dice.chance(0.5) else _plain_leaf(dice)

    if dice.chance(0.3):
        return FrozenDict({"type": "array", "items": child()})
    names = _names(dice, dice.below(4))
    pairs: list[tuple[str, Json]] = [
        ("type", "object"),
        ("properties", FrozenDict((n, child()) for n in names)),
        ("required", tuple(names[:1])),
    ]
    return _ordered(dice, pairs)
