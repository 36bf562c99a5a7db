"""OpenAI bodies (chat completions and Responses) rendered into units, as the provider
documents its prompt.

- Cache order: chat completions, tools, the output format, messages; Responses,
  instructions, tools, the output format, input items.
- Envelope objects (a message, a part, an item) compare with their keys in one order
  (inferred: the API reads them by field name); a tool's declaration and an output
  ``schema`` keep the order they were sent in; a call's ``arguments`` is a string and
  is compared as sent, whitespace and key order included.
- ``prompt_cache_breakpoint`` markers are not content (inferred): they are kept on the unit.
- Responses items' ``id`` and ``status`` are left out (inferred: they refer to stored items
  and their state; ``phase`` is content and stays).
- A string content and a list of one text part stay apart: OpenAI documents no equivalence,
  and third-party probes found the two cached differently.

A unit is eligible for a lookup boundary after it where the guide says one may fall: at the
end of a user message, of the last tool response of a consecutive group, of the last
developer message of the initial consecutive group.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ._canonical import in_order, read_unit, without
from ._equivalence import Equivalence
from ._unit import Unit

__all__ = ["EQUIVALENCES", "item_units", "list_of", "unit"]

_MARKER: Final = "prompt_cache_breakpoint"
_KEEP: Final = frozenset({"parameters", "schema"})
_BOOKKEEPING: Final = ("id", "status")
_HEAD_ROLES: Final = frozenset({"developer", "system"})
CACHING: Final = "https://developers.openai.com/api/docs/guides/prompt-caching"
RESPONSES: Final = "https://developers.openai.com/api/reference/resources/responses"

EQUIVALENCES: Final = (
    Equivalence(
        "json-spelling",
        "the body's whitespace and string escapes",
        "inferred",
        'the API parses the body before it renders the prompt ("OpenAI caches the '
        "model's full rendered context\"); a call's arguments string is content and is "
        "compared as sent",
        CACHING,
    ),
    Equivalence(
        "envelope-key-order",
        "the key order of a message, a part or an item",
        "inferred",
        "the API reads these objects by field name; a tool's parameters and an output "
        "schema keep their key order",
        CACHING,
    ),
    Equivalence(
        "breakpoint-marker",
        "prompt_cache_breakpoint markers are not content",
        "inferred",
        "the guide places a breakpoint at the matching boundary of a later request to read "
        "an earlier entry: the marker says where, it is not part of the prefix",
        CACHING,
    ),
    Equivalence(
        "item-bookkeeping",
        "a Responses item's id and status",
        "inferred",
        'status is "populated when items are returned via API"; an id refers to a stored '
        "item; neither is text the model reads",
        RESPONSES,
    ),
    Equivalence(
        "string-content-part",
        "a string content against a list of one text part",
        "undocumented",
        "OpenAI documents no equivalence, and third-party probes report the two cached differently",
        CACHING,
    ),
)


def list_of(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def item_units(out: list[Unit], items: list[Any], key: str, own: tuple[str, ...]) -> None:
    """The units of each message or item: a header (its role and fields of its own), then a
    unit per content part (or one for a string content) and per entry of ``own`` arrays."""
    head = True
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        bare = without(item, *_BOOKKEEPING) if key == "input" else item
        applied = ("item-bookkeeping",) if bare is not item else ()
        role = item.get("role") if isinstance(item.get("role"), str) else None
        content = bare.get("content")
        parts = isinstance(content, list | str)
        header = without(bare, "content", *own) if parts or own else bare
        if not in_order(bare):
            applied = (*applied, "envelope-key-order")
        out.append(unit(f"{key}[{k}]", f"{key}[{k}]", "history", header, k, role, applied))
        if isinstance(content, str):
            out.append(
                unit(f"{key}[{k}].content", f"{key}[{k}].content", "history", content, k, role)
            )
        elif isinstance(content, list):
            for j, part in enumerate(content):
                name = f"{key}[{k}].content[{j}]"
                out.append(unit(name, name, "history", part, k, role))
        for field in own:
            for j, entry in enumerate(list_of(bare.get(field))):
                name = f"{key}[{k}].{field}[{j}]"
                out.append(unit(name, name, "history", entry, k, role))
        kind = _kind(item, role)
        head = head and kind == "developer"
        following = _kind(items[k + 1], _role(items[k + 1])) if k + 1 < len(items) else None
        eligible = (
            kind == "user"
            or (kind == "tool" and following != "tool")
            or (head and following != "developer")
        )
        out[-1] = replace(out[-1], ends_message=True, eligible=eligible)


def _role(item: Any) -> str | None:
    role = item.get("role") if isinstance(item, dict) else None
    return role if isinstance(role, str) else None


def _kind(item: Any, role: str | None) -> str:
    """What the guide's eligibility rules call the message: user, tool (a tool response or a
    call's output item), developer (or system), or other."""
    if role in _HEAD_ROLES:
        return "developer"
    if role in ("user", "tool"):
        return role
    if isinstance(item, dict) and item.get("type") == "function_call_output":
        return "tool"
    return "other"


def unit(
    name: str,
    path: str,
    family: Any,
    item: Any,
    message: int | None = None,
    role: str | None = None,
    applied: tuple[str, ...] = (),
) -> Unit:
    """A unit: its marker taken off, its envelope in canonical order."""
    return read_unit(
        name,
        path,
        family,
        item,
        keep=_KEEP,
        marker=(_MARKER, "breakpoint-marker"),
        applied=applied,
        message=message,
        role=role,
    )
