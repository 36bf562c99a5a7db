"""Reading a JSON-lines log of requests for an offline check (``prefix-harness check-log``).

Two line formats, mixed freely: a record line of ``prefix-harness capture`` (it has
``"v"``), and a minimal line from any other tool: ``{"body": ..., "path": ..., "dialect":
..., "mark": ...}`` where only ``body`` (the request JSON, as an object or as text) is
required. A line that is neither is bad input, reported with the file and line number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..dialects import all_dialects, detect_dialect
from ..model import json_kind
from ._observe import Ignored, Observed, observe_record, observed
from ._record import Record
from ._server import WIRES
from ._stored import Stored

__all__ = ["LogError", "read_log"]


class LogError(ValueError):
    """A log that cannot be checked; ``str()`` is one sentence naming the file and line."""


def read_log(
    path: str | Path, *, dialect: str | None = None
) -> tuple[tuple[Observed, ...], tuple[Ignored, ...]]:
    """The usable requests of a log and the model calls left out; ``LogError`` for bad
    input. ``dialect`` is the wire format of minimal lines that do not name one (default:
    from their ``path``, else detected from the body)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise LogError(f"{path}: cannot be read ({e.strerror or e})") from None
    used: list[Observed] = []
    ignored: list[Ignored] = []
    stored = Stored()
    lines = 0
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        lines += 1
        where = f"{path}: line {number}"
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            raise LogError(f"{where}: not valid JSON ({e.msg})") from None
        if not isinstance(obj, dict):
            raise LogError(f"{where}: a log line is a JSON object, not {json_kind(obj)}")
        found = (
            _record_line(obj, where, stored)
            if "v" in obj
            else _minimal_line(obj, number, where, dialect)
        )
        if isinstance(found, Observed):
            used.append(found)
        elif found is not None:
            ignored.append(found)
    if not lines:
        raise LogError(f"{path}: the file is empty: there is no request to check")
    return tuple(used), tuple(ignored)


def _record_line(obj: dict[str, Any], where: str, stored: Stored) -> Observed | Ignored | None:
    try:
        record = Record.from_json(obj)
    except ValueError as e:
        raise LogError(f"{where}: not a capture record: {e}") from None
    return observe_record(record, stored)


def _minimal_line(
    obj: dict[str, Any], number: int, where: str, default: str | None
) -> Observed | Ignored | None:
    if "body" not in obj:
        raise LogError(
            f'{where}: the line has no "body" (the request JSON) and is not a capture record'
        )
    for key in ("path", "dialect", "mark"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise LogError(f'{where}: "{key}" must be a string, not {json_kind(obj[key])}')
    body, raw = _body(obj["body"], where)
    route_dialect = None
    if obj.get("path"):
        routes = {d: w.route("POST", obj["path"].split("?")[0], {}) for d, w in WIRES.items()}
        if any(r is not None and r.kind != "generate" for r in routes.values()):
            return None  # token counting and the like: not a model call
        route_dialect = next((d for d, r in routes.items() if r is not None), None)
    name = obj.get("dialect") or default or route_dialect
    if name is None:
        detected, _ = detect_dialect(body)
        if detected is None:
            raise LogError(
                f'{where}: cannot tell the body\'s wire format; give --dialect or a "dialect" field'
            )
        name = detected.name
    if name not in all_dialects():
        known = ", ".join(all_dialects())
        raise LogError(f"{where}: unknown dialect {name!r} (known: {known})")
    found = observed(number, name, raw, body, mark=obj.get("mark"))
    return Ignored(number, found) if isinstance(found, str) else found


def _body(value: Any, where: str) -> tuple[dict[str, Any], bytes]:
    """The decoded body and its bytes (text as given; an object re-encoded compactly)."""
    if isinstance(value, str):
        try:
            decoded = orjson.loads(value)
        except orjson.JSONDecodeError as e:
            raise LogError(f'{where}: the "body" text is not valid JSON ({e.msg})') from None
        raw = value.encode("utf-8")
    else:
        decoded, raw = value, orjson.dumps(value)
    if not isinstance(decoded, dict):
        raise LogError(f'{where}: the "body" is {json_kind(decoded)}, not a JSON object')
    return decoded, raw
