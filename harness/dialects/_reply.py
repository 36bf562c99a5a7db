"""A model turn in neutral form: text, function calls, or both.

Scripts speak in these; each wire module renders them in its provider's response shape, so
one script drives an agent whatever provider it talks to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import FrozenDict, FunctionCall, Message, Part, Text, freeze, thaw

__all__ = ["Reply", "ToolCall", "reply_from_json"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One function call the fake model makes: a tool name and its arguments (key order kept)."""

    name: str
    args: FrozenDict

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "args": thaw(self.args)}


@dataclass(frozen=True, slots=True)
class Reply:
    """What the fake model answers: optional text, then zero or more calls (never neither)."""

    text: str | None = None
    calls: tuple[ToolCall, ...] = ()

    def __post_init__(self) -> None:
        if self.text is None and not self.calls:
            raise ValueError("a Reply has text, calls, or both")

    def message(self, call_ids: Sequence[str | None] = ()) -> Message:
        """The model message this reply is: its text, then its calls, call ``i`` with id
        ``call_ids[i]`` (none beyond the ids given)."""
        parts: list[Part] = [] if self.text is None else [Text(self.text)]
        for i, call in enumerate(self.calls):
            call_id = call_ids[i] if i < len(call_ids) else None
            parts.append(FunctionCall(name=call.name, args=call.args, id=call_id))
        return Message("model", tuple(parts))

    def to_json(self) -> dict[str, Any]:
        """The reply as a script writes it: ``{"text": ...}`` and/or ``{"call": [...]}``."""
        out: dict[str, Any] = {}
        if self.text is not None:
            out["text"] = self.text
        if self.calls:
            out["call"] = [call.to_json() for call in self.calls]
        return out


def reply_from_json(value: Any) -> Reply:
    """Read back ``Reply.to_json()``; ``ValueError`` when the value is not one."""
    if not isinstance(value, dict):
        raise ValueError("a reply is an object")
    text = value.get("text")
    calls = value.get("call", [])
    if (text is not None and not isinstance(text, str)) or not isinstance(calls, list):
        raise ValueError('a reply has a string "text" and/or an array "call"')
    out: list[ToolCall] = []
    for call in calls:
        if not (
            isinstance(call, dict)
            and isinstance(call.get("name"), str)
            and isinstance(call.get("args"), dict)
        ):
            raise ValueError('a call is an object with a string "name" and an object "args"')
        args = freeze(call["args"])
        assert isinstance(args, FrozenDict)
        out.append(ToolCall(call["name"], args))
    return Reply(text=text, calls=tuple(out))
