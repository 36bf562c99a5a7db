"""JSON paths as people read them: ``tools[3].parameters.properties["a b"]``."""

from __future__ import annotations

import re

import orjson

__all__ = ["join_path"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_STEPS: dict[str, str] = {}
"""The step each object key appends (``.key`` or ``["odd key"]``): the readers of a long
history join the same few keys to every message's path."""
_STEPS_MAX = 4096


def _step(key: str) -> str:
    step = _STEPS.get(key)
    if step is None:
        if len(_STEPS) >= _STEPS_MAX:
            _STEPS.clear()
        step = f".{key}" if _IDENTIFIER.match(key) else f"[{orjson.dumps(key).decode()}]"
        _STEPS[key] = step
    return step


def join_path(base: str, *keys: str | int) -> str:
    """Append object keys (``.key`` or ``["odd key"]``) and array indexes (``[3]``)."""
    path = base
    for key in keys:
        if isinstance(key, int):
            path = f"{path}[{key}]"
        else:
            step = _step(key)
            path = step[1:] if not path and step[0] == "." else path + step
    return path
