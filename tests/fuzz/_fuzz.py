"""What the fuzz targets share: how deep they go, the command line run in process with its
output captured, and JSON values mutated the ways a broken client or a hostile log does
(types changed, keys deleted or duplicated, nesting deepened, huge numbers, bad UTF-8).

``PREFIX_HARNESS_FUZZ=N`` multiplies every target's examples by N (default 1); CI runs
them derandomized through the ``ci`` profile of ``tests/conftest.py``.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, reject, settings
from hypothesis import strategies as st

from harness.cli import run

__all__ = [
    "FUZZ",
    "Deep",
    "Pairs",
    "Raw",
    "assert_clean",
    "dumps",
    "fuzz_settings",
    "json_values",
    "mutated_bytes",
    "mutated_value",
    "run_cli",
]

FUZZ = max(1, int(os.environ.get("PREFIX_HARNESS_FUZZ", "1") or 1))
TRACEBACK = "Traceback (most recent call last)"


def fuzz_settings(examples: int, **kwargs: Any) -> Callable[[Any], Any]:
    """``examples`` times ``PREFIX_HARNESS_FUZZ``, no deadline (the CLI reads files)."""
    return settings(
        max_examples=examples * FUZZ,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        **kwargs,
    )


KNOWN: list[tuple[type[BaseException], str, str]] = []
"""Open failures outside the command line's own code, as (exception type, text in its
message, source file it is raised from): inputs that reach them are left out of the
targets until they are fixed, each with a reproducer in its test module. None is open."""


def _known(error: BaseException) -> bool:
    import traceback

    where = [f.filename for f in traceback.extract_tb(error.__traceback__)]
    return any(
        isinstance(error, kind) and text in str(error) and any(w.endswith(source) for w in where)
        for kind, text, source in KNOWN
    )


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


def run_cli(argv: Sequence[str]) -> Ran:
    """``prefix-harness ARGV`` in process, its standard output and error captured (an
    exception escapes: that is a traceback)."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(out, encoding="utf-8", errors="backslashreplace", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True),
    )
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = streams
    try:
        try:
            code = run(list(argv))
        except SystemExit as e:  # argparse's own usage errors
            code = e.code if isinstance(e.code, int) else 2
        except Exception as e:
            if _known(e):
                reject()
            raise
    finally:
        for s in streams:
            s.flush()
        sys.stdout, sys.stderr = saved
    return Ran(
        code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    )


def assert_clean(ran: Ran, allowed: set[int]) -> None:
    """An exit code of the documented table, and no traceback."""
    assert ran.code in allowed, (ran.code, ran.err[-2000:], ran.out[-2000:])
    assert TRACEBACK not in ran.err, ran.err[-4000:]
    assert TRACEBACK not in ran.out, ran.out[-4000:]
    if ran.code == 2:
        assert ran.err.startswith("prefix-harness: error: ") or "usage:" in ran.err, ran.err


# --- JSON with what the json module cannot write: duplicate keys and deep nesting ---------


class Pairs(list[tuple[str, Any]]):
    """An object written from its pairs, so a key may repeat."""


@dataclass(frozen=True)
class Deep:
    """``value`` inside ``depth`` arrays (or objects) without recursion to write it."""

    value: Any
    depth: int
    objects: bool = False


@dataclass(frozen=True)
class Raw:
    """JSON text written as is (numbers JSON allows that Python does not round-trip)."""

    text: str


def dumps(value: Any) -> bytes:
    """JSON text of ``value``; strings may hold lone surrogates (written as bad UTF-8)."""
    return _text(value).encode("utf-8", "surrogatepass")


def _text(value: Any) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Deep):
        opening, closing = ('{"k":', "}") if value.objects else ("[", "]")
        return opening * value.depth + _text(value.value) + closing * value.depth
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{_text(k)}:{_text(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_text(k)}:{_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_text(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)  # floats: NaN and Infinity as Python writes them


HUGE = [
    2**63,
    -(2**63) - 1,
    2**64,
    -(2**64),
    10**30,
    -(10**300),
    Raw("1e400"),
    Raw("-1e400"),
    Raw("1" * 4000),
    Raw("NaN"),
    Raw("0.1e-999"),
    2**53 + 1,
    -1,
    0,
]
STRINGS = [
    "",
    "\u0000",
    "\ud800",
    "\udfff x",
    "a" * 70_000,
    "\u202e\ufeff",
    "user",
    "assistant",
    "model",
    "system",
    "tool",
    "function_call",
    "input_text",
    "text",
    "image",
    "0",
]


def json_values(leaves: int = 6) -> st.SearchStrategy[Any]:
    """Small JSON values, with the numbers and strings that break readers."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=20),
        st.sampled_from(HUGE),
        st.sampled_from(STRINGS),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(
                st.sampled_from(["type", "role", "text", "content", "id", "x"]), inner, max_size=3
            ),
        ),
        max_leaves=leaves,
    )


def _paths(value: Any, limit: int = 400) -> list[tuple[Any, ...]]:
    """Paths (keys and indexes) to the nodes of ``value``, root first, breadth first."""
    found: list[tuple[Any, ...]] = [()]
    queue: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while queue and len(found) < limit:
        path, node = queue.pop(0)
        items: list[tuple[Any, Any]] = []
        if isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list):
            items = list(enumerate(node))
        for key, child in items:
            found.append((*path, key))
            queue.append(((*path, key), child))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = _get(value, path[:-1])
    parent[path[-1]] = new
    return value


OPERATIONS = ["replace", "delete", "duplicate", "deepen", "huge", "string", "wrap", "empty"]


@st.composite
def mutated_value(draw: st.DrawFn, value: Any, *, most: int = 3) -> Any:
    """``value`` (a JSON value, copied) with one to ``most`` mutations at drawn paths."""
    value = json.loads(json.dumps(value))
    for _ in range(draw(st.integers(1, most))):
        paths = _paths(value)
        path = draw(st.sampled_from(paths))
        node = _get(value, path)
        operation = draw(st.sampled_from(OPERATIONS))
        if operation == "replace":
            value = _set(value, path, draw(json_values()))
        elif operation == "delete" and path:
            parent = _get(value, path[:-1])
            if isinstance(parent, dict | list):
                del parent[path[-1]]
        elif operation == "duplicate" and isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
            other = draw(st.one_of(st.just(node[key]), json_values()))
            pairs = Pairs(node.items())
            pairs.insert(draw(st.integers(0, len(pairs))), (key, other))
            return _set(value, path, pairs)  # written as it is from here on
        elif operation == "deepen":
            depth = draw(st.sampled_from([3, 40, 200, 300, 700, 1030, 5000]))
            return _set(value, path, Deep(node, depth, draw(st.booleans())))
        elif operation == "huge":
            value = _set(value, path, draw(st.sampled_from(HUGE)))
        elif operation == "string":
            value = _set(value, path, draw(st.sampled_from(STRINGS)))
        elif operation == "wrap":
            value = _set(value, path, draw(st.sampled_from([[node], {"value": node}])))
        elif operation == "empty":
            value = _set(value, path, type(node)() if isinstance(node, dict | list | str) else None)
        if _has_marks(value):
            return value
    return value


def _has_marks(value: Any) -> bool:
    if isinstance(value, Raw | Deep | Pairs):
        return True
    if isinstance(value, dict):
        return any(_has_marks(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_marks(v) for v in value)
    return False


BYTE_EDITS = [
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\n",
    b"\r",
    b'"',
    b"{",
    b"]",
    b"\\u",
]


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a byte edit: bad UTF-8 or a stray token inserted, a cut, a byte dropped."""
    if not data:
        return draw(st.sampled_from(BYTE_EDITS))
    at = draw(st.integers(0, len(data)))
    edit = draw(st.sampled_from(["insert", "cut", "drop", "bom"]))
    if edit == "insert":
        return data[:at] + draw(st.sampled_from(BYTE_EDITS)) + data[at:]
    if edit == "cut":
        return data[:at]
    if edit == "drop":
        return data[:at] + data[at + 1 :]
    return b"\xef\xbb\xbf" + data
