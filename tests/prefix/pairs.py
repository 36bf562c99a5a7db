"""Parent and fork bodies at the edges of the diff's shortcuts (``harness._bodies.Layout``):
each pair as raw bytes, with how many leading messages the fork's layout should share with
the parent's (None: the fork is not its own compact encoding, or the parent is not)."""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from harness._bodies import BodyPair, decode_body
from harness.model._json import dumps
from harness.prefix import PrefixComparison, compare

TOOLS = [{"type": "function", "function": {"name": "run", "parameters": {"type": "object"}}}]
CALL = {"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{}"}}
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "step 1 é"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "out"},
    {"role": "user", "content": [{"type": "text", "text": "c"}]},
]
TAIL: list[dict[str, Any]] = [
    {"role": "assistant", "content": "Forking."},
    {"role": "user", "content": "go"},
]
WIDE = 2**64


def body(messages: list[dict[str, Any]], **extra: Any) -> bytes:
    """A compact body (integers beyond 64 bits written exactly)."""
    return dumps({"model": "m", "messages": messages, "tools": TOOLS, **extra})


PARENT = body(HISTORY)
FORK = body(HISTORY + TAIL)
LAST = orjson.dumps(HISTORY[-1])
GO = orjson.dumps(TAIL[-1])


class Pair(NamedTuple):
    name: str
    parent: bytes
    fork: bytes
    shared: int | None
    """Leading messages the fork's layout takes from the parent's; None: no fork layout."""


def _wide(n: int, tail: list[dict[str, Any]]) -> bytes:
    return body([HISTORY[0], {"role": "user", "content": "a", "n": n}, *HISTORY[2:], *tail])


def _extended(last: dict[str, Any], tail: list[dict[str, Any]]) -> bytes:
    return body([*HISTORY, last, *tail])


PAIRS = [
    Pair("appended", PARENT, FORK, 4),  # the last: its closing bracket is the fork's comma
    Pair("identical", PARENT, PARENT, 5),
    Pair("shorter", PARENT, body(HISTORY[:3]), 2),  # the third: its bracket is the comma
    Pair("tail-duplicate-key", PARENT, FORK.replace(GO, GO[:-1] + b',"content":"went"}'), None),
    Pair("top-level-duplicate-after-span", PARENT, FORK[:-1] + b',"model":"n"}', None),
    Pair(
        "array-read-again-after-span",
        PARENT,
        FORK[:-1] + b',"messages":' + orjson.dumps(HISTORY) + b"}",
        None,
    ),
    Pair(
        "duplicate-in-a-container-crossing-the-edge",
        PARENT,
        FORK.replace(LAST, LAST.replace(b'"text":"c"', b'"text":"c","text":"d"')),
        None,
    ),
    Pair("crossing-number", body(HISTORY, n=12), body(HISTORY, n=123), 5),
    Pair(
        "crossing-number-in-a-message",
        _extended({"role": "user", "content": "x", "n": 12}, []),
        _extended({"role": "user", "content": "x", "n": 123}, TAIL),
        5,
    ),
    Pair("whitespace", PARENT, FORK.replace(b'"model":"m"', b'"model": "m"'), None),
    Pair("whitespace-in-the-tail", PARENT, FORK.replace(GO, GO.replace(b",", b", ")), None),
    Pair("escaped-slash-in-the-tail", PARENT, FORK.replace(b'"go"', b'"g\\/o"'), None),
    Pair(
        "escaped-slash-shared",
        PARENT.replace(b"agent.", b"agent\\/."),
        FORK.replace(b"agent.", b"agent\\/."),
        None,
    ),
    Pair("escaped-e-acute", PARENT, FORK.replace("é".encode(), b"\\u00e9"), None),
    Pair("wide-integer-shared", _wide(WIDE, []), _wide(WIDE, TAIL), None),
    Pair("wide-integer-differs", _wide(WIDE, []), _wide(WIDE + 1, TAIL), None),
    Pair("wide-integer-outside", PARENT, FORK.replace(GO, GO[:-1] + b',"n":%d}' % WIDE), None),
    Pair("early-change", PARENT, FORK.replace(b"coding agent", b"coding agents"), 0),
    Pair(
        "tools-moved",
        PARENT,
        orjson.dumps({"model": "m", "tools": TOOLS, "messages": HISTORY + TAIL}),
        0,
    ),
    Pair("bom", b"\xef\xbb\xbf" + PARENT, b"\xef\xbb\xbf" + FORK, 4),
    Pair("bom-on-the-fork-alone", PARENT, b"\xef\xbb\xbf" + FORK, 4),
    Pair("trailing-newline", PARENT + b"\n", FORK + b"\n", 4),
    Pair("parent-not-compact", PARENT.replace(b",", b", "), FORK, 0),
]
IDS = [p.name for p in PAIRS]


def slow_pair(
    parent: bytes, fork: bytes, warnings: list[str], sources: tuple[str, str] = ("p", "f")
) -> BodyPair:
    """The two bodies decoded one at a time, with no layout: the path every shortcut must
    agree with."""
    return BodyPair(
        decode_body(parent, source=sources[0], warnings=warnings),
        decode_body(fork, source=sources[1], warnings=warnings),
        None,
        None,
    )


def compared(pair: BodyPair) -> PrefixComparison:
    from harness.dialects import get_dialect

    dialect = get_dialect("openai")
    return compare(
        dialect.parse(pair.parent),
        dialect.parse(pair.fork),
        layouts=(pair.parent_layout, pair.fork_layout),
    )
