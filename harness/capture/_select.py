"""Values a scripted reply takes from the run (docs/capture.md, "Values from the run").

A selector ``{"$from": "result", "tool": "spawn_agent", "path": "agent_id"}`` stands for a
value the run has shown: a tool result the agent sent back (``"result"``: an agent id the
runtime minted, a file's contents) or an argument of a call the model made (``"call"``). It
may sit anywhere in a call's arguments, or be a reply's whole ``text``. The latest value in
the request being answered is taken, else the latest any earlier request of the run showed;
``path`` walks into it (keys and list indexes, dot-separated; JSON text is decoded first),
``pattern`` takes the first group (or the whole match) of a regular expression searched in
it. A rule whose selectors find nothing yet does not answer: the next rule is tried, so a
follow-up waits until the value exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from ..model import FrozenDict, FunctionCall, FunctionResponse, Json, Request, freeze, thaw

__all__ = ["SELECTOR", "UNRESOLVED", "Seen", "Selector", "has_selectors", "parse_selector"]

SELECTOR: Final = "$from"
"""The key that makes an object of a reply a selector."""
SOURCES: Final = ("result", "call")
_FIELDS: Final = frozenset({SELECTOR, "tool", "path", "pattern"})


class _Unresolved:
    def __repr__(self) -> str:
        return "UNRESOLVED"


UNRESOLVED: Final = _Unresolved()
"""What a selector yields when the run has shown no such value yet."""


@dataclass(frozen=True, slots=True)
class Selector:
    """Where a value comes from: ``source`` (``result`` or ``call``), the ``tool`` whose call
    it belongs to (any when None), a ``path`` into it and a ``pattern`` to search in it."""

    source: str
    tool: str | None = None
    path: tuple[str | int, ...] = ()
    pattern: re.Pattern[str] | None = None


def parse_selector(data: Mapping[str, Any]) -> Selector:
    """The selector an object of a script states; ``ValueError`` naming the field that is
    wrong (the script's reader adds the file and the JSON path)."""
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})")
    source = data[SELECTOR]
    if source not in SOURCES:
        raise ValueError(f"{SELECTOR} must be one of {', '.join(SOURCES)}, not {source!r}")
    tool, path, pattern = data.get("tool"), data.get("path"), data.get("pattern")
    for name, value in (("tool", tool), ("path", path), ("pattern", pattern)):
        if value is not None and (not isinstance(value, str) or not value):
            raise ValueError(f"{name} must be a non-empty string")
    steps: tuple[str | int, ...] = ()
    if path is not None:
        steps = tuple(int(p) if p.isdigit() else p for p in path.split("."))
    compiled = None
    if pattern is not None:
        try:
            compiled = re.compile(pattern)
        except re.error as e:
            raise ValueError(f"pattern is not a regular expression: {e}") from None
    return Selector(source, tool, steps, compiled)


def has_selectors(value: Json) -> bool:
    """Whether a reply's value holds a selector anywhere."""
    if isinstance(value, dict):
        return SELECTOR in value or any(has_selectors(v) for v in value.values())
    if isinstance(value, tuple):
        return any(has_selectors(v) for v in value)
    return False


class Seen:
    """The latest result and call argument of each tool the run has shown, kept by the
    script's matcher (one object per run, under its lock): what a selector falls back on
    when the request it answers holds no such value."""

    def __init__(self) -> None:
        self._latest: dict[tuple[str, str], Json] = {}

    def note(self, request: Request) -> None:
        """Remember the values of ``request``'s history (later ones win)."""
        for source, tool, value in _values(request):
            self._latest.pop((source, tool), None)  # moved last: the latest of all
            self._latest[(source, tool)] = value

    def resolve(self, value: Json, request: Request) -> Json | _Unresolved:
        """``value`` with every selector in it replaced by what it selects; ``UNRESOLVED``
        when one of them selects nothing."""
        if isinstance(value, dict):
            if SELECTOR in value:
                return self._select(parse_selector(value), request)
            out: dict[str, Json] = {}
            for key, item in value.items():
                found = self.resolve(item, request)
                if found is UNRESOLVED:
                    return UNRESOLVED
                out[key] = found  # type: ignore[assignment]
            return FrozenDict(out)
        if isinstance(value, tuple):
            items = []
            for item in value:
                found = self.resolve(item, request)
                if found is UNRESOLVED:
                    return UNRESOLVED
                items.append(found)
            return tuple(items)  # type: ignore[arg-type]
        return value

    def _select(self, selector: Selector, request: Request) -> Json | _Unresolved:
        candidates = [
            value
            for source, tool, value in _values(request)
            if source == selector.source and selector.tool in (None, tool)
        ]
        for value in reversed(candidates):  # the latest in the request first
            found = _narrow(value, selector)
            if found is not UNRESOLVED:
                return found
        keys = [
            key
            for key in self._latest
            if key[0] == selector.source and selector.tool in (None, key[1])
        ]
        for key in reversed(keys):
            found = _narrow(self._latest[key], selector)
            if found is not UNRESOLVED:
                return found
        return UNRESOLVED


def _values(request: Request) -> Iterator[tuple[str, str, Json]]:
    """Every (source, tool, value) of ``request``'s history, in order: each call's
    arguments and each result, by the tool's name."""
    for message in request.history:
        for part in message.parts:
            if isinstance(part, FunctionCall):
                yield "call", part.name, part.args
            elif isinstance(part, FunctionResponse):
                yield "result", part.name, part.response


def _narrow(value: Json, selector: Selector) -> Json | _Unresolved:
    """What ``selector``'s path and pattern take of ``value``."""
    current: Json = _decoded(value)
    for step in selector.path:
        current = _decoded(current)
        if isinstance(step, int) and isinstance(current, tuple) and step < len(current):
            current = current[step]
        elif isinstance(current, dict) and str(step) in current:
            current = current[str(step)]
        else:
            return UNRESOLVED
    if selector.pattern is None:
        return current
    text = current if isinstance(current, str) else orjson.dumps(thaw(current)).decode()
    match = selector.pattern.search(text)
    if match is None:
        return UNRESOLVED
    return match.group(1) if match.groups() else match.group(0)


def _decoded(value: Json) -> Json:
    """A result as its value: JSON text decoded, a list of text blocks as its joined text
    (decoded when it is JSON)."""
    if (
        isinstance(value, tuple)
        and value
        and all(isinstance(b, dict) and isinstance(b.get("text"), str) for b in value)
    ):
        value = "".join(str(b["text"]) for b in value if isinstance(b, dict))
    if isinstance(value, str):
        try:
            decoded = orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
        return freeze(decoded) if isinstance(decoded, dict | list) else value
    return value
