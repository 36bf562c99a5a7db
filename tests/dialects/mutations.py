"""Valid bodies with a value of another JSON type put anywhere: what every dialect must refuse
with a ``DialectError``, never another exception."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from hypothesis import strategies as st

from harness.dialects import Dialect, DialectError
from harness.model import json_kind

SNAPSHOTS = Path(__file__).parents[2] / "snapshots"

Path_ = tuple[str | int, ...]

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["type", "role", "text", "content", "name", "a", "0"]),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=6,
)
"""Any JSON value, with keys that the dialects look for, so a replacement can go on deeper."""


@cache
def valid_bodies(dialect: str) -> tuple[bytes, ...]:
    """Every request body of the dialect's snapshots (parents, children, follow-ups)."""
    found: list[bytes] = []
    for file in sorted((SNAPSHOTS / dialect).glob("*.json")):
        snapshot = orjson.loads(file.read_bytes())
        bodies = [snapshot["parent"], snapshot["parent_next"]]
        bodies += snapshot["children"] + snapshot["follow_ups"]
        found += [orjson.dumps(b) for b in bodies if isinstance(b, dict)]
    return tuple(dict.fromkeys(found))


def paths(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    yield path
    if isinstance(value, dict):
        for key, member in value.items():
            yield from paths(member, (*path, key))
    elif isinstance(value, list):
        for i, member in enumerate(value):
            yield from paths(member, (*path, i))


def replaced(body: Any, path: Path_, value: Any) -> Any:
    if not path:
        return value
    body = copy.deepcopy(body)
    holder = body
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return body


@st.composite
def mutated_bodies(draw: st.DrawFn, dialect: str, *, max_mutations: int = 3) -> Any:
    """A valid body of ``dialect`` with one to three values, anywhere, replaced by a value
    of another JSON type."""
    body = orjson.loads(draw(st.sampled_from(valid_bodies(dialect))))
    for _ in range(draw(st.integers(1, max_mutations))):
        path = draw(st.sampled_from(list(paths(body))))
        old = replaced_value(body, path)
        new = draw(VALUES.filter(lambda v, old=old: json_kind(v) != json_kind(old)))
        body = replaced(body, path, new)
    return body


def replaced_value(body: Any, path: Path_) -> Any:
    for step in path:
        body = body[step]
    return body


def reads_or_refuses(dialect: Dialect, body: Any) -> None:
    """``parse``, the request and the markers return or raise ``DialectError``; anything
    else fails."""
    try:
        parsed = dialect.parse(body)
    except DialectError:
        return
    for read in ("request", "markers"):
        with contextlib.suppress(DialectError):
            getattr(parsed, read)
