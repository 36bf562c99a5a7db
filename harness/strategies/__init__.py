"""Hypothesis strategies for the neutral model and scenarios, and a state machine that plays a
whole agent session through a subject: public, for users' own tests (docs/strategies.md)."""

from ._depth import DEPTH_VARIABLE, depth, long_turns
from ._histories import Ending, histories
from ._json import json_objects, json_values
from ._model import presets, requests, settings, tools
from ._scenarios import (
    call_response_pairs,
    continuable_scenarios,
    fork_scenarios,
    scenarios,
    sibling_scenarios,
    spawn_scenarios,
)
from ._schemas import json_schemas
from ._session import SessionMachine, SessionViolation, session_machine
from ._text import unicode_texts
from ._types import register_types

__all__ = [
    "DEPTH_VARIABLE",
    "Ending",
    "SessionMachine",
    "SessionViolation",
    "call_response_pairs",
    "continuable_scenarios",
    "depth",
    "fork_scenarios",
    "histories",
    "json_objects",
    "json_schemas",
    "json_values",
    "long_turns",
    "presets",
    "register_types",
    "requests",
    "scenarios",
    "session_machine",
    "settings",
    "sibling_scenarios",
    "spawn_scenarios",
    "tools",
    "unicode_texts",
]

register_types()
