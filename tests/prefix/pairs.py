"""Parent and fork bodies at the edges of reading and comparing: whitespace, escapes, a
byte-order mark, keys held twice, integers beyond 64 bits, numbers that only start alike;
each pair as raw bytes, with whether the fork keeps the parent's prefix and whether reading
them warns of a key held twice."""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from harness.model._json import dumps

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
    kept: bool
    """The fork's prefix stream starts with the parent's."""
    warned: bool = False
    """Reading one of them says that an object holds a key twice."""


def _wide(n: int, tail: list[dict[str, Any]]) -> bytes:
    return body([HISTORY[0], {"role": "user", "content": "a", "n": n}, *HISTORY[2:], *tail])


def _extended(last: dict[str, Any], tail: list[dict[str, Any]]) -> bytes:
    return body([*HISTORY, last, *tail])


PAIRS = [
    Pair("appended", PARENT, FORK, kept=True),
    Pair("identical", PARENT, PARENT, kept=True),
    Pair("shorter", PARENT, body(HISTORY[:3]), kept=False),
    Pair(
        "tail-duplicate-key",
        PARENT,
        FORK.replace(GO, GO[:-1] + b',"content":"went"}'),
        kept=True,
        warned=True,
    ),
    Pair(
        "top-level-duplicate-after-span",
        PARENT,
        FORK[:-1] + b',"model":"n"}',  # its last value counts: another model, another cache
        kept=False,
        warned=True,
    ),
    Pair(
        "array-read-again-after-span",
        PARENT,
        FORK[:-1] + b',"messages":' + orjson.dumps(HISTORY) + b"}",
        kept=True,
        warned=True,
    ),
    Pair(
        "duplicate-in-a-container",
        PARENT,
        FORK.replace(LAST, LAST.replace(b'"text":"c"', b'"text":"c","text":"d"')),
        kept=False,
        warned=True,
    ),
    Pair("crossing-number", body(HISTORY, n=12), body(HISTORY, n=123), kept=True),
    Pair(
        "crossing-number-in-a-message",
        _extended({"role": "user", "content": "x", "n": 12}, []),
        _extended({"role": "user", "content": "x", "n": 123}, TAIL),
        kept=False,
    ),
    Pair("whitespace", PARENT, FORK.replace(b'"model":"m"', b'"model": "m"'), kept=True),
    Pair("whitespace-in-the-tail", PARENT, FORK.replace(GO, GO.replace(b",", b", ")), kept=True),
    Pair("escaped-slash-in-the-tail", PARENT, FORK.replace(b'"go"', b'"g\\/o"'), kept=True),
    Pair(
        "escaped-slash-shared",
        PARENT.replace(b"agent.", b"agent\\/."),
        FORK.replace(b"agent.", b"agent\\/."),
        kept=True,
    ),
    Pair("escaped-e-acute", PARENT, FORK.replace("é".encode(), b"\\u00e9"), kept=True),
    Pair("wide-integer-shared", _wide(WIDE, []), _wide(WIDE, TAIL), kept=True),
    Pair("wide-integer-differs", _wide(WIDE, []), _wide(WIDE + 1, TAIL), kept=False),
    Pair(
        "wide-integer-outside",
        PARENT,
        FORK.replace(GO, GO[:-1] + b',"n":%d}' % WIDE),
        kept=True,
    ),
    Pair("early-change", PARENT, FORK.replace(b"coding agent", b"coding agents"), kept=False),
    Pair(
        "tools-moved",
        PARENT,
        orjson.dumps({"model": "m", "tools": TOOLS, "messages": HISTORY + TAIL}),
        kept=True,
    ),
    Pair("bom", b"\xef\xbb\xbf" + PARENT, b"\xef\xbb\xbf" + FORK, kept=True),
    Pair("bom-on-the-fork-alone", PARENT, b"\xef\xbb\xbf" + FORK, kept=True),
    Pair("trailing-newline", PARENT + b"\n", FORK + b"\n", kept=True),
    Pair("parent-not-compact", PARENT.replace(b",", b", "), FORK, kept=True),
]
IDS = [p.name for p in PAIRS]
