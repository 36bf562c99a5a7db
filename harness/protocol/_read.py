"""Reading the subject's lines: each reply is checked against the shapes of ``schemas/`` by
hand — cheap enough for every line — and a ``ProtocolError`` says what was wrong;
``validate_message`` is the full schema check on top.

A body is read for its shape alone (a string of text that can be UTF-8 encoded): what the
text holds is the rules' to judge (rule well-formed), so a body is parsed once, by them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson

from ..model import json_kind
from ._messages import (
    LIFECYCLES,
    PROTOCOL_VERSION,
    AssembleReply,
    Implementation,
    ProtocolError,
    SubjectRefused,
)

__all__ = ["decode_line", "read_assemble_reply", "read_start_reply"]

_NO_MEMORY = "Not enough memory"
"""How orjson says it ran out of memory (a ``JSONDecodeError``, though the JSON may be fine)."""

_DIALECT: Final = re.compile(r"[a-z][a-z0-9_-]*\Z")
_FEATURE: Final = re.compile(r"[a-z][a-z0-9-]*\Z")
_REPLY_KEYS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "assembled": (("parent", "children"), ("follow_ups", "parent_next")),
    "rejected": (("message",), ("parent",)),
    "skipped": (("reason",), ()),
    "errored": (("message",), ()),
}
"""Per status: the keys a reply must have and those it may have, besides seq and status."""


def decode_line(line: bytes) -> dict[str, Any]:
    """A line's JSON object, or ``ProtocolError``. orjson checks the UTF-8 as it reads; a
    line it refuses is decoded again only to say which of the two it is not."""
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        if e.msg.startswith(_NO_MEMORY):  # the line is not at fault: the memory is
            raise MemoryError(e.msg) from None
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as u:
            raise ProtocolError(
                f"the line is not UTF-8 (byte {line[u.start]:#04x} at {u.start})"
            ) from None
        raise ProtocolError(f"the line is not JSON ({e})") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"the line is {json_kind(message)}, not a JSON object")
    return message


def read_start_reply(message: Mapping[str, Any]) -> Implementation:
    """The implementation a start reply describes; ``ProtocolError`` for a refusal, another
    version, or a wrong shape."""
    _not_a_request(message)
    if "seq" in message or "status" in message:
        raise ProtocolError("the reply to start has seq/status, as a reply to assemble would")
    ok = message.get("ok", True)
    if not isinstance(ok, bool):
        raise ProtocolError(f"ok must be a boolean, not {json_kind(ok)}")
    if not ok:
        _keys(message, ("ok", "error"), ("version",), "the start reply")
        raise SubjectRefused(f"the subject refused to start: {_string(message, 'error')}")
    _keys(message, ("version", "implementation"), ("ok", "features"), "the start reply")
    version = message["version"]
    if version != PROTOCOL_VERSION or isinstance(version, bool):
        raise ProtocolError(
            f"the subject speaks protocol version {_show(version)}; "
            f"this harness speaks version {PROTOCOL_VERSION}"
        )
    described = message["implementation"]
    if not isinstance(described, dict):
        raise ProtocolError(f"implementation must be an object, not {json_kind(described)}")
    _keys(
        described,
        ("name", "language", "dialects", "lifecycles"),
        ("version", "homepage"),
        "implementation",
    )
    dialects = _names(described, "dialects", lambda d: bool(_DIALECT.match(d)))
    lifecycles = _names(described, "lifecycles", lambda c: c in LIFECYCLES)
    return Implementation(
        name=_string(described, "name", nonempty=True),
        language=_string(described, "language", nonempty=True),
        dialects=dialects,
        lifecycles=lifecycles,
        version=_string(described, "version", nonempty=True) if "version" in described else None,
        homepage=_string(described, "homepage", nonempty=True) if "homepage" in described else None,
        features=_features(message.get("features", [])),
    )


def read_assemble_reply(message: Mapping[str, Any], seq: int) -> AssembleReply:
    """The reply to assemble ``seq``; ``ProtocolError`` for another seq or a wrong shape."""
    _not_a_request(message)
    if "implementation" in message or ("ok" in message and "seq" not in message):
        raise ProtocolError("the reply to assemble looks like a reply to start")
    if "seq" not in message:
        raise ProtocolError("the reply has no seq")
    got = message["seq"]
    if not isinstance(got, int) or isinstance(got, bool):
        raise ProtocolError(f"seq must be an integer, not {json_kind(got)}")
    if got != seq:
        again = " (a second reply to an earlier request?)" if 0 < got < seq else ""
        raise ProtocolError(f"the reply answers seq {got} where seq {seq} was asked{again}")
    status = message.get("status")
    if status not in _REPLY_KEYS:
        raise ProtocolError(f"status must be one of {', '.join(_REPLY_KEYS)}, not {_show(status)}")
    required, optional = _REPLY_KEYS[status]
    _keys(message, ("seq", "status", *required), optional, f"the {status} reply")
    if status == "skipped":
        return AssembleReply(seq, status, message=_string(message, "reason"))
    if status != "assembled":
        parent = _optional_body(message.get("parent"), "parent")
        return AssembleReply(seq, status, parent=parent, message=_string(message, "message"))
    return AssembleReply(
        seq,
        status,
        parent=_optional_body(message["parent"], "parent"),
        children=_bodies(message["children"], "children"),
        follow_ups=_bodies(message.get("follow_ups", []), "follow_ups"),
        parent_next=_optional_body(message.get("parent_next"), "parent_next"),
    )


def _not_a_request(message: Mapping[str, Any]) -> None:
    if "cmd" in message:
        raise ProtocolError(f"the reply has cmd {_show(message['cmd'])}, as a request would")


def _keys(
    obj: Mapping[str, Any], required: Iterable[str], optional: Iterable[str], what: str
) -> None:
    """Every required key is there; any other key is optional or an ``x-`` extension."""
    required = tuple(required)
    missing = [k for k in required if k not in obj]
    if missing:
        raise ProtocolError(f"{what} lacks {', '.join(missing)}")
    known = {*required, *optional}
    extra = [k for k in obj if k not in known and not k.startswith("x-")]
    if extra:
        raise ProtocolError(
            f"{what} has unknown key {', '.join(map(repr, extra))} "
            f"(known: {', '.join(sorted(known))}; extensions start with x-)"
        )


def _string(obj: Mapping[str, Any], key: str, *, nonempty: bool = False) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or (nonempty and not value):
        wanted = "a non-empty string" if nonempty else "a string"
        raise ProtocolError(f"{key} must be {wanted}, not {_show(value)}")
    return value


def _names(obj: Mapping[str, Any], key: str, good: Any) -> tuple[str, ...]:
    values = obj[key]
    if (
        not isinstance(values, list)
        or not values
        or not all(isinstance(v, str) and good(v) for v in values)
        or len(set(values)) != len(values)
    ):
        raise ProtocolError(
            f"{key} must be a non-empty array of distinct names, not {_show(values)}"
        )
    return tuple(values)


def _features(values: Any) -> tuple[str, ...]:
    """The features a start reply declares, unknown ones kept (the subject said them)."""
    if not isinstance(values, list):
        raise ProtocolError(f"features must be an array of names, not {json_kind(values)}")
    for value in values:
        if not isinstance(value, str) or not _FEATURE.match(value):
            raise ProtocolError(
                f'features must hold names such as "same-scenario" '
                f"(lower-case letters, digits and -), not {_show(value)}"
            )
    if len(set(values)) != len(values):
        twice = next(v for i, v in enumerate(values) if v in values[:i])
        raise ProtocolError(f"features names {_show(twice)} twice")
    return tuple(values)


def _bodies(values: Any, key: str) -> tuple[bytes, ...]:
    if not isinstance(values, list):
        raise ProtocolError(f"{key} must be an array of bodies, not {json_kind(values)}")
    return tuple(_body(v, f"{key}[{i}]") for i, v in enumerate(values))


def _optional_body(value: Any, where: str) -> bytes | None:
    return None if value is None else _body(value, where)


def _body(value: Any, where: str) -> bytes:
    """A body's bytes: it must be a string (its shape), whose text can be UTF-8 encoded.

    Whether that text is JSON, and an object, is not read here: a body that is not is a
    serializer bug of the implementation under test, judged by rule well-formed (exit 1,
    saying where the text breaks), not a broken pipe; and the rules parse it once anyway."""
    if not isinstance(value, str):
        raise ProtocolError(
            f"{where} must be a string holding the body's JSON text, not {json_kind(value)} "
            "(bodies travel as text so that their bytes stay the subject's own)"
        )
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ProtocolError(
            f"{where} cannot be encoded as UTF-8 ({e.reason}: U+{ord(value[e.start]):04X} "
            f"at character {e.start})"
        ) from None


def _show(value: Any, limit: int = 80) -> str:
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
