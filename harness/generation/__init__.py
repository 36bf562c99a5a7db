"""Hypothesis strategies that generate the neutral model and scenarios: what ``check`` draws
its generated scenarios from, below the checker in the layers.

Users reach them through ``harness.strategies`` (docs/strategies.md), which adds the session
state machine; the names here that it does not re-export (``FORK_TOOL``,
``RESERVED_TOOL_NAMES``, ``phrases``) are shared with the checker and the session machine
only.
"""

from ._depth import DEPTH_VARIABLE, depth, long_turns
from ._histories import Ending, histories
from ._json import json_objects, json_values
from ._model import presets, requests, settings, tools
from ._scenarios import (
    FORK_TOOL,
    RESERVED_TOOL_NAMES,
    call_response_pairs,
    continuable_scenarios,
    fork_scenarios,
    scenarios,
    sibling_scenarios,
    spawn_scenarios,
)
from ._schemas import json_schemas
from ._text import phrases, unicode_texts
from ._types import register_types

__all__ = [
    "DEPTH_VARIABLE",
    "FORK_TOOL",
    "RESERVED_TOOL_NAMES",
    "Ending",
    "call_response_pairs",
    "continuable_scenarios",
    "depth",
    "fork_scenarios",
    "histories",
    "json_objects",
    "json_schemas",
    "json_values",
    "long_turns",
    "phrases",
    "presets",
    "register_types",
    "requests",
    "scenarios",
    "settings",
    "sibling_scenarios",
    "spawn_scenarios",
    "tools",
    "unicode_texts",
]

register_types()
