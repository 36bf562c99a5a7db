"""The protocol's messages (docs/protocol.md#messages): their types, and building them as lines.

One JSON object per line, UTF-8, ``\\n``-terminated. Request bodies travel as strings holding
the exact JSON text a subject would POST, so that what the harness compares is the subject's
own serialisation (key order included), not a re-encoding by this protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

import orjson

__all__ = [
    "LIFECYCLES",
    "PROTOCOL_VERSION",
    "SAME_SCENARIO",
    "AssembleReply",
    "Implementation",
    "ProtocolError",
    "ReplyStatus",
    "SubjectRefused",
    "assemble_reply",
    "assemble_request",
    "encode_assemble",
    "encode_assemble_parts",
    "encode_line",
    "encode_same_scenario",
    "refusal_reply",
    "same_scenario_request",
    "start_reply",
    "start_request",
    "stop_request",
]

PROTOCOL_VERSION: Final = 1
ReplyStatus: TypeAlias = Literal["assembled", "rejected", "skipped", "errored"]
LIFECYCLES: Final = ("one-shot", "continuable", "spawn")
SAME_SCENARIO: Final = "same-scenario"
"""The feature a subject declares to be sent a short ``assemble`` (``same_scenario``) for a
scenario it was sent in its previous ``assemble``: it then parses each scenario once."""


class ProtocolError(ValueError):
    """A subject's line that is not the message the protocol expects; ``str()`` says why."""


class SubjectRefused(ProtocolError):
    """A start reply with ``ok`` false: the subject says it cannot start, and why."""


@dataclass(frozen=True, slots=True)
class Implementation:
    """What a subject says of itself in its start reply."""

    name: str
    language: str
    dialects: tuple[str, ...]
    lifecycles: tuple[str, ...]
    version: str | None = None
    homepage: str | None = None
    features: tuple[str, ...] = ()
    """The optional protocol features it declared, unknown ones included (only known ones,
    such as ``SAME_SCENARIO``, have an effect)."""


@dataclass(frozen=True, slots=True)
class AssembleReply:
    """An assemble reply, read: bodies are the UTF-8 bytes of the JSON text the subject sent."""

    seq: int
    status: ReplyStatus
    parent: bytes | None = None
    children: tuple[bytes, ...] = ()
    follow_ups: tuple[bytes, ...] = ()
    parent_next: bytes | None = None
    message: str | None = None


# --- building --------------------------------------------------------------------------------


def start_request(version: int = PROTOCOL_VERSION) -> dict[str, Any]:
    return {"cmd": "start", "version": version}


def assemble_request(seq: int, dialect: str, scenario: Mapping[str, Any]) -> dict[str, Any]:
    """``scenario`` is the scenario's JSON form (``scenario_to_json``)."""
    return {"cmd": "assemble", "seq": seq, "dialect": dialect, "scenario": scenario}


def encode_assemble(seq: int, dialect: str, scenario: bytes) -> bytes:
    """``encode_line(assemble_request(seq, dialect, ...))`` for a scenario already encoded
    (``scenario``: its compact JSON bytes), byte for byte."""
    return b"".join(encode_assemble_parts(seq, dialect, scenario))


def encode_assemble_parts(seq: int, dialect: str, scenario: bytes) -> tuple[bytes, bytes, bytes]:
    """``encode_assemble``'s line as the three parts it joins, ``scenario`` itself the middle
    one: written with one ``writev``, a long scenario is not first copied into a line."""
    head = b'{"cmd":"assemble","seq":%d,"dialect":%s,"scenario":' % (seq, orjson.dumps(dialect))
    return head, scenario, b"}\n"


def same_scenario_request(seq: int, dialect: str) -> dict[str, Any]:
    """The short ``assemble``: the scenario of the previous ``assemble`` the process received
    (only for a subject that declared ``SAME_SCENARIO``)."""
    return {"cmd": "assemble", "seq": seq, "dialect": dialect, "same_scenario": True}


def encode_same_scenario(seq: int, dialect: str) -> bytes:
    """``encode_line(same_scenario_request(seq, dialect))``, byte for byte."""
    return b'{"cmd":"assemble","seq":%d,"dialect":%s,"same_scenario":true}\n' % (
        seq,
        orjson.dumps(dialect),
    )


def stop_request() -> dict[str, Any]:
    return {"cmd": "stop"}


def start_reply(implementation: Implementation) -> dict[str, Any]:
    """A subject's start reply: ready to speak ``PROTOCOL_VERSION`` (``features`` written only
    when it declares some, so that a subject without any says exactly what it said before)."""
    described: dict[str, Any] = {"name": implementation.name, "language": implementation.language}
    if implementation.version is not None:
        described["version"] = implementation.version
    if implementation.homepage is not None:
        described["homepage"] = implementation.homepage
    described["dialects"] = list(implementation.dialects)
    described["lifecycles"] = list(implementation.lifecycles)
    reply: dict[str, Any] = {"ok": True, "version": PROTOCOL_VERSION, "implementation": described}
    if implementation.features:
        reply["features"] = list(implementation.features)
    return reply


def refusal_reply(error: str) -> dict[str, Any]:
    """A subject's start reply when it cannot start (e.g. it speaks another version)."""
    return {"ok": False, "version": PROTOCOL_VERSION, "error": error}


def assemble_reply(
    seq: int,
    status: ReplyStatus,
    *,
    parent: bytes | None = None,
    children: Sequence[bytes] = (),
    follow_ups: Sequence[bytes] = (),
    parent_next: bytes | None = None,
    message: str | None = None,
) -> dict[str, Any]:
    """A subject's reply to ``assemble`` ``seq``, bodies given as the bytes it would POST."""
    reply: dict[str, Any] = {"seq": seq, "status": status}
    if status == "assembled":
        reply["parent"] = _text(parent)
        reply["children"] = [_text(b) for b in children]
        if follow_ups:
            reply["follow_ups"] = [_text(b) for b in follow_ups]
        if parent_next is not None:
            reply["parent_next"] = _text(parent_next)
    elif status == "skipped":
        reply["reason"] = message or ""
    else:
        reply["message"] = message or ""
        if status == "rejected" and parent is not None:
            reply["parent"] = _text(parent)
    return reply


def _text(body: bytes | None) -> Any:
    return None if body is None else body.decode("utf-8")


def encode_line(message: Mapping[str, Any]) -> bytes:
    """One protocol line: compact JSON and a newline."""
    return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
