"""JSON paths as people read them: ``tools[3].parameters.properties["a b"]``."""

from __future__ import annotations

import re

import orjson

__all__ = ["join_path"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def join_path(base: str, *keys: str | int) -> str:
    """Append object keys (``.key`` or ``["odd key"]``) and array indexes (``[3]``)."""
    out = [base]
    for key in keys:
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif _IDENTIFIER.match(key):
            out.append(f".{key}" if out != [""] else key)
        else:
            out.append(f"[{orjson.dumps(key).decode()}]")
    return "".join(out)
