"""Hypothesis strategies for the neutral model and scenarios, public for users' own tests."""

from ._model import Ending, histories, json_objects, json_values, presets, requests, settings, tools
from ._scenarios import (
    call_response_pairs,
    continuable_scenarios,
    fork_scenarios,
    scenarios,
    sibling_scenarios,
    spawn_scenarios,
)

__all__ = [
    "Ending",
    "call_response_pairs",
    "continuable_scenarios",
    "fork_scenarios",
    "histories",
    "json_objects",
    "json_values",
    "presets",
    "requests",
    "scenarios",
    "settings",
    "sibling_scenarios",
    "spawn_scenarios",
    "tools",
]
