"""How far the "long" draws go: one knob for the whole process, read when a strategy is built.

``PREFIX_HARNESS_DEPTH`` (a whole number, default 1) multiplies the upper bounds of long
histories and of the session machine's runs; the test suite's ``nightly`` Hypothesis profile sets
it to 4. A strategy reads it when it is built, so set it before the test modules are imported
(in a ``conftest.py``, or in the environment of the run).
"""

from __future__ import annotations

import os

__all__ = ["DEPTH_VARIABLE", "LONG_MIN_TURNS", "depth", "long_turns"]

DEPTH_VARIABLE = "PREFIX_HARNESS_DEPTH"
LONG_MIN_TURNS = 100
"""A long history has at least this many turns (a user message and the model's reply each)."""
_LONG_MAX_TURNS = 150


def depth() -> int:
    """The depth multiplier from ``PREFIX_HARNESS_DEPTH``; a ``ValueError`` naming the variable
    when it is not a whole number from 1 up."""
    raw = os.environ.get(DEPTH_VARIABLE, "").strip()
    if not raw:
        return 1
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{DEPTH_VARIABLE}={raw!r} must be a whole number from 1 up")
    return value


def long_turns() -> tuple[int, int]:
    """The (least, most) turns of a long history at the current depth: 100..150, the upper
    bound times ``depth()``."""
    return LONG_MIN_TURNS, _LONG_MAX_TURNS * depth()
