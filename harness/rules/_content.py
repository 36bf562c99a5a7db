"""What the model needs from a conversation, apart from how a subject renders it.

Two renderings carry the same content when they hold, in order, the same roles, texts
(whitespace aside), calls (name and arguments, key order aside), call results and images.
The rest is a rendering choice the model can do without: an image's detail level, thinking
parts (kept, redacted or dropped), signatures, call ids, whitespace, how parts are grouped
into messages, and text a runtime adds of its own. Rules say "content lost" on the first and
at most warn on the second, so a correct implementation with its own rendering conforms.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..model import FunctionCall, FunctionResponse, Image, Message, Part, Text, Thinking, thaw

__all__ = [
    "Item",
    "Loss",
    "content_item",
    "content_items",
    "content_lost",
    "rendering_differences",
    "same_messages",
]

_WRAPPERS = ("output", "content", "result")
"""Keys a dialect or a runtime wraps a bare tool result in: ``{"output": "..."}``."""


@dataclass(frozen=True, slots=True)
class Item:
    """One piece of content: ``kind`` is text, call, result or image; ``value`` compares."""

    message: int
    role: str
    kind: str
    value: str
    part: Part

    def describe(self) -> str:
        part = self.part
        if isinstance(part, Text):
            return f"the {self.role} text {_snippet(part.text)}"
        if isinstance(part, FunctionCall):
            return f"the call {part.name}({_snippet(_canonical(part.args), 40)})"
        if isinstance(part, FunctionResponse):
            return f"the result {_snippet(self.value, 40)}"
        return "an image"


@dataclass(frozen=True, slots=True)
class Loss:
    """The first expected item missing from (or changed in) the actual messages.

    ``at`` is the index of the actual message where it should be (the end when past it).
    """

    expected: Item
    at: int
    changed: Item | None = None

    def describe(self) -> str:
        where = f"message {self.expected.message} ({self.expected.role})"
        if self.changed is not None and self.changed.kind == self.expected.kind:
            return f"{where}: {self.expected.describe()} reads {_snippet(self.changed.value)}"
        return f"{where}: {self.expected.describe()} is missing"


def _snippet(text: str, limit: int = 48) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def _canonical(value: Any) -> str:
    value = thaw(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # nested past orjson's 254 levels (its reader takes 1,024)
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _result(value: Any) -> str:
    """A tool result as content: unwrapped from ``{"output": ...}``, JSON text decoded,
    a list of text blocks joined, whitespace normalised."""
    value = thaw(value)
    if isinstance(value, str):
        try:
            decoded = orjson.loads(value)
        except orjson.JSONDecodeError:
            return " ".join(value.split())
        if not isinstance(decoded, dict | list):
            return " ".join(value.split())
        value = decoded
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in _WRAPPERS:
        return _result(next(iter(value.values())))
    if (
        isinstance(value, list)
        and value
        and all(isinstance(b, dict) and isinstance(b.get("text"), str) for b in value)
    ):
        return " ".join(" ".join(b["text"].split()) for b in value)
    return _canonical(value)


def _item(k: int, role: str, part: Part) -> Item | None:
    if isinstance(part, Text):
        text = " ".join(part.text.split())
        return Item(k, role, "text", text, part) if text else None
    if isinstance(part, FunctionCall):
        return Item(k, role, "call", f"{part.name} {_canonical(part.args)}", part)
    if isinstance(part, FunctionResponse):
        value = _result(part.response) + (" (error)" if part.is_error else "")
        return Item(k, role, "result", value, part)
    if isinstance(part, Image):
        return Item(k, role, "image", f"{part.mime_type or ''} {part.data or part.url}", part)
    return None  # thinking and opaque parts: not content a rendering must keep


def content_item(role: str, part: Part) -> Item | None:
    """The content of one part of a message of ``role`` (numbered 0), None for none: what
    ``content_items`` gives for that message alone, with no message made to hold it."""
    return _item(0, role, part)


def content_items(messages: Sequence[Message], *, first: int = 0) -> list[Item]:
    """The content of ``messages`` in order, thinking and opaque parts left out; messages
    are numbered from ``first``."""
    return [
        item
        for k, message in enumerate(messages, start=first)
        for part in message.parts
        if (item := _item(k, message.role, part)) is not None
    ]


def content_lost(
    expected: Sequence[Message], actual: Sequence[Message], *, first: int = 0
) -> Loss | None:
    """The first content of ``expected`` that ``actual`` does not carry, in order; None when
    every item is there. ``actual`` may hold more: texts of the runtime's own between the
    expected items, and anything after them. Both are numbered from message ``first``.

    The same messages, or ones equal with equal reprs, hold the same items and are not
    itemised. Equality alone is not enough: it takes ``1``, ``1.0`` and ``true`` for one
    value, which an item's JSON tells apart."""
    if same_messages(expected, actual):
        return None
    theirs = content_items(actual, first=first)
    j = 0
    for mine in content_items(expected, first=first):
        start = j
        while j < len(theirs) and not _same(theirs[j], mine) and theirs[j].kind == "text":
            j += 1  # a text of the runtime's own
        if j < len(theirs) and _same(theirs[j], mine):
            j += 1
            continue
        changed = theirs[start] if start < len(theirs) else None
        at = changed.message if changed is not None else first + len(actual)
        return Loss(mine, at, changed)
    return None


def same_messages(expected: Sequence[Message], actual: Sequence[Message]) -> bool:
    """Whether the two runs hold the very same messages (``_identical``, one by one): then
    nothing is lost and nothing is rendered differently (the two are equal)."""
    return len(expected) == len(actual) and all(map(_identical, expected, actual))


def _identical(a: Message, b: Message) -> bool:
    """Whether ``a`` and ``b`` hold the very same content: one object, or equal with every
    value of the same type (their reprs, which show ``1``, ``1.0`` and ``True`` apart).
    Equal messages of plain texts alone (every value a ``str``, or no signature) have equal
    reprs: only the others' are made."""
    if a is b:
        return True
    return a == b and ((_plain(a) and _plain(b)) or repr(a) == repr(b))


def _plain(message: Message) -> bool:
    """Whether ``message`` is a ``Message`` of ``Text`` parts whose values are all ``str``
    (or no signature): what is equal among such messages is also written the same."""
    if type(message) is not Message or type(message.role) is not str:
        return False
    for part in message.parts:
        if type(part) is not Text or type(part.text) is not str:
            return False
        if part.signature is not None and type(part.signature) is not str:
            return False
    return True


def _same(a: Item, b: Item) -> bool:
    return (a.role, a.kind, a.value) == (b.role, b.kind, b.value)


def rendering_differences(expected: Sequence[Message], actual: Sequence[Message]) -> list[str]:
    """How ``actual`` renders the content of ``expected`` differently, in a few words each;
    empty when the two are equal. Call only when ``content_lost`` found nothing."""
    if tuple(expected) == tuple(actual):
        return []
    said: list[str] = []
    mine = [p for m in expected for p in m.parts]
    theirs = [p for m in actual for p in m.parts]

    def thinking(parts: list[Part], redacted: bool) -> int:
        return sum(isinstance(p, Thinking) and p.redacted == redacted for p in parts)

    if thinking(theirs, False) < thinking(mine, False):
        said.append("thinking parts dropped or redacted")
    details = [p.detail for p in mine if isinstance(p, Image)]
    if details != [p.detail for p in theirs if isinstance(p, Image)][: len(details)]:
        said.append("image detail not sent as given")
    ids = [p.id for p in mine if isinstance(p, FunctionCall | FunctionResponse)]
    if ids != [p.id for p in theirs if isinstance(p, FunctionCall | FunctionResponse)][: len(ids)]:
        said.append("call ids differ")

    def texts(parts: list[Part]) -> list[str]:
        return [p.text for p in parts if isinstance(p, Text) and p.text.strip()]

    if texts(mine) != texts(theirs)[: len(texts(mine))]:
        said.append("texts differ in whitespace or the runtime adds text of its own")
    if len(expected) != len(actual):
        said.append(f"{len(expected)} messages rendered as {len(actual)}")
    return said or ["signatures or other rendering details differ"]
