"""Saying which documented equivalence made two spellings one prompt, and which undocumented
one might: a report names it where it mattered (docs/cache-model.md).

Two bodies whose rendered prefixes agree but whose segments as sent do not were taken as one
prompt by an equivalence: the ids their units applied differently say which. Two units that
differ only by a spelling the provider documents no equivalence for (an OpenAI string content
against a list of one text part) stay a difference, and the report says "possibly the same
to the cache; undocumented".
"""

from __future__ import annotations

from ..dialects import Dialect, Equivalence, Unit
from ..model import dumps
from ._body import Body

__all__ = ["candidate_note", "equivalence_note"]


def equivalence_note(dialect: Dialect, before: Body, after: Body, count: int) -> str | None:
    """The equivalences that made ``after``'s first ``count`` units those of ``before`` where
    their segments as sent differ, as a sentence; None where they were sent alike."""
    if _segments(before, count) == _segments(after, count):
        return None
    mine, theirs = before.priced.view.units[:count], after.priced.view.units[:count]
    ids: dict[str, None] = {}
    for a, b in zip(mine, theirs, strict=False):
        for id_ in sorted(set(a.applied) ^ set(b.applied)):
            ids[id_] = None
    if not ids:  # both spelled otherwise than the canonical form, each its own way
        for unit in (*mine, *theirs):
            ids.update(dict.fromkeys(i for i in unit.applied if i == "envelope-key-order"))
    found = [e for e in map(dialect.facts.equivalence, ids) if e is not None and e.applied]
    if not found:
        found = [e for e in (dialect.facts.equivalence("json-spelling"),) if e is not None]
    return "; ".join(e.sentence() for e in found) or None


def candidate_note(dialect: Dialect, mine: Unit | None, theirs: Unit | None) -> str | None:
    """Where two differing units would be the same under a spelling the provider documents
    no equivalence for, the sentence that says so; None otherwise."""
    if mine is None or theirs is None:
        return None
    for equivalence in dialect.facts.equivalences:
        if not equivalence.applied and _same_under(equivalence, mine, theirs):
            return equivalence.sentence()
    return None


def _same_under(equivalence: Equivalence, a: Unit, b: Unit) -> bool:
    """Whether ``a`` and ``b`` are one text, a string on one side and one text part on the
    other (``string-content-part``), or one call with and without empty ``args``
    (``missing-args``), or one content with and without ``role: user`` (``missing-role``)."""
    if equivalence.id == "string-content-part":
        return _text_of(a.value) is not None and _text_of(a.value) == _text_of(b.value)
    if equivalence.id == "missing-args":
        return _without_empty_args(a.value) == _without_empty_args(b.value)
    if equivalence.id == "missing-role":
        return _with_user(a.value) == _with_user(b.value)
    return False


def _text_of(value: object) -> str | None:
    """A string content's text, or a text part's."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and value.get("type") in ("text", "input_text"):
        text = value.get("text")
        return text if isinstance(text, str) else None
    return None


def _without_empty_args(value: object) -> object:
    if isinstance(value, dict) and isinstance(value.get("functionCall"), dict):
        call = dict(value["functionCall"])
        if call.get("args") == {}:
            call.pop("args")
        return {**value, "functionCall": call}
    return value


def _with_user(value: object) -> object:
    if isinstance(value, dict) and "role" not in value:
        return {**value, "role": "user"}
    return value


def _segments(body: Body, count: int) -> tuple[tuple[str, bytes], ...]:
    """The body's segments as sent that its first ``count`` units were read from, each
    with its compact JSON (key order kept: a dict's equality would ignore it)."""
    units = body.priced.view.units[:count]
    roots = dict.fromkeys(_root(u.path) for u in units)
    return tuple((s.name, dumps(s.value)) for s in body.parsed.segments if s.name in roots)


def _root(path: str) -> str:
    """The segment a unit path lies in: ``messages[3]`` for ``messages[3].content[1]``."""
    for part in (".content", ".parts", ".tool_calls"):
        path = path.partition(part)[0]
    return path
