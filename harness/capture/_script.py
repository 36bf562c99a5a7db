"""Scripts: which model turn the fake provider plays for which request (docs/capture.md).

A script is a JSON object with an ordered list of rules; the first rule whose ``when`` holds
answers, and a default reply answers when none does. Reading a script checks every field,
so a typo fails at once with the file and JSON path instead of silently never matching.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

from ..dialects import Reply, ToolCall
from ..model import FrozenDict, freeze, join_path

__all__ = [
    "DEFAULT_FORK_TAG",
    "DEFAULT_REPLY",
    "Rule",
    "Script",
    "ScriptError",
    "When",
    "load_script",
    "parse_script",
]

DEFAULT_FORK_TAG = "<fork-boilerplate>"
DEFAULT_REPLY = Reply(text="OK.")
_T = TypeVar("_T")


class ScriptError(ValueError):
    """A script that cannot be used; ``str()`` names the file and the JSON path."""

    def __init__(self, source: str, problem: str, path: str = "") -> None:
        where = f"{source}: {path}" if path else source
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.path = path
        self.problem = problem


@dataclass(frozen=True, slots=True)
class When:
    """Conditions on a request; all given ones must hold (an empty ``When`` always holds).

    ``turn`` is 1 + the number of model messages in the request's history, so ``first`` is
    ``turn == 1``; ``nth_request`` counts the requests the script answered, from 1, over the
    whole run; ``in_fork_child`` is whether the history holds the script's fork tag.
    """

    turn: int | None = None
    first: bool | None = None
    nth_request: int | None = None
    history_contains: str | None = None
    last_user_contains: str | None = None
    system_contains: str | None = None
    in_fork_child: bool | None = None
    has_tool_result_for: str | None = None

    @property
    def needs_request(self) -> bool:
        """Whether any condition reads the request itself (all but ``nth_request`` do)."""
        return any(getattr(self, name) is not None for name in _REQUEST_CONDITIONS)


_REQUEST_CONDITIONS = (
    "turn",
    "first",
    "history_contains",
    "last_user_contains",
    "system_contains",
    "in_fork_child",
    "has_tool_result_for",
)


@dataclass(frozen=True, slots=True)
class Rule:
    """When ``when`` holds, answer ``reply``; record ``mark``; fire at most ``times`` times."""

    reply: Reply
    when: When = field(default_factory=When)
    mark: str | None = None
    times: int | None = None


@dataclass(frozen=True, slots=True)
class Script:
    """Ordered rules (first match wins), the default reply, and the fork tag to look for."""

    rules: tuple[Rule, ...] = ()
    default: Reply = DEFAULT_REPLY
    fork_tag: str = DEFAULT_FORK_TAG
    source: str = "<script>"


def load_script(path: str | Path) -> Script:
    """Read and check a script file; ``ScriptError`` names the file and the JSON path."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ScriptError(source, "no such script file") from None
    except IsADirectoryError:
        raise ScriptError(source, "is a directory, not a script file") from None
    except OSError as e:
        raise ScriptError(source, f"cannot be read ({e.strerror or e})") from None
    try:
        decoded = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise ScriptError(
            source, f"is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}"
        ) from None
    return parse_script(decoded, source=source)


def parse_script(data: Any, *, source: str = "<script>") -> Script:
    """Check an already decoded script and build it."""
    top = _object(data, source, "", {"rules", "default", "fork_tag", "comment"})
    rules_value = top.get("rules", [])
    if not isinstance(rules_value, list):
        raise ScriptError(source, f"must be an array of rules, not {_kind(rules_value)}", "rules")
    rules = tuple(_rule(r, source, join_path("rules", i)) for i, r in enumerate(rules_value))
    default = DEFAULT_REPLY
    if "default" in top:
        default = _reply(top["default"], source, "default")
    fork_tag = _typed(top, "fork_tag", str, "a string", source, "", DEFAULT_FORK_TAG)
    if not fork_tag:
        raise ScriptError(source, "must not be empty", "fork_tag")
    _typed(top, "comment", str, "a string", source, "", None)
    return Script(rules=rules, default=default, fork_tag=fork_tag, source=source)


def _rule(data: Any, source: str, path: str) -> Rule:
    rule = _object(data, source, path, {"when", "reply", "mark", "times", "comment"})
    if "reply" not in rule:
        raise ScriptError(source, "the reply is missing", join_path(path, "reply"))
    times = _typed(rule, "times", int, "a whole number", source, path, None)
    if times is not None and times < 1:
        raise ScriptError(source, "must be 1 or more", join_path(path, "times"))
    _typed(rule, "comment", str, "a string", source, path, None)
    return Rule(
        reply=_reply(rule["reply"], source, join_path(path, "reply")),
        when=_when(rule.get("when", {}), source, join_path(path, "when")),
        mark=_typed(rule, "mark", str, "a string", source, path, None),
        times=times,
    )


def _when(data: Any, source: str, path: str) -> When:
    when = _object(data, source, path, set(_WHEN_FIELDS))
    values: dict[str, Any] = {}
    for name, (kind, what) in _WHEN_FIELDS.items():
        value = _typed(when, name, kind, what, source, path, None)
        if value is not None and kind is int and value < 1:
            raise ScriptError(source, "must be 1 or more", join_path(path, name))
        values[name] = value
    return When(**values)


_WHEN_FIELDS: dict[str, tuple[type, str]] = {
    "turn": (int, "a whole number"),
    "first": (bool, "true or false"),
    "nth_request": (int, "a whole number"),
    "history_contains": (str, "a string"),
    "last_user_contains": (str, "a string"),
    "system_contains": (str, "a string"),
    "in_fork_child": (bool, "true or false"),
    "has_tool_result_for": (str, "a string"),
}


def _reply(data: Any, source: str, path: str) -> Reply:
    reply = _object(data, source, path, {"text", "call"})
    text = _typed(reply, "text", str, "a string", source, path, None)
    calls: tuple[ToolCall, ...] = ()
    if "call" in reply:
        value = reply["call"]
        call_path = join_path(path, "call")
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, list) or not value:
            raise ScriptError(source, "must be a non-empty array of calls", call_path)
        calls = tuple(_call(c, source, join_path(call_path, i)) for i, c in enumerate(value))
    if text is None and not calls:
        raise ScriptError(source, 'a reply needs "text", "call" or both', path)
    return Reply(text=text, calls=calls)


def _call(data: Any, source: str, path: str) -> ToolCall:
    call = _object(data, source, path, {"name", "args"})
    name = _typed(call, "name", str, "a string", source, path, None)
    if not name:
        raise ScriptError(source, "the tool name is missing or empty", join_path(path, "name"))
    args = _typed(call, "args", dict, "an object", source, path, {})
    frozen = freeze(args)
    assert isinstance(frozen, FrozenDict)
    return ToolCall(name=name, args=frozen)


def _object(data: Any, source: str, path: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise ScriptError(source, f"must be an object, not {_kind(data)}", path)
    for key in data:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise ScriptError(source, f"unknown field {key!r} (known: {known})", path)
    return data


def _typed(
    obj: Mapping[str, Any],
    key: str,
    kind: type[_T],
    what: str,
    source: str,
    path: str,
    default: _T | None,
) -> Any:
    if key not in obj:
        return default
    value = obj[key]
    is_bool = isinstance(value, bool)
    if not isinstance(value, kind) or (is_bool and kind is not bool):
        raise ScriptError(source, f"must be {what}, not {_kind(value)}", join_path(path, key))
    return value


_KINDS: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}
_KINDS.update({bool: "a boolean", int: "a number", float: "a number", type(None): "null"})


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)
