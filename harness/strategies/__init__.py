"""Hypothesis strategies for the neutral model and scenarios, and a state machine that plays a
whole agent session through a subject: public, for users' own tests (docs/strategies.md).

The strategies are ``harness.generation``'s, which ``check`` draws from too; the session
machine judges with the rules and the reports, so it lives here, in the testing layer beside
the command line (CONTRIBUTING.md, layers).
"""

from ..generation import (
    DEPTH_VARIABLE,
    Ending,
    call_response_pairs,
    continuable_scenarios,
    depth,
    fork_scenarios,
    histories,
    json_objects,
    json_schemas,
    json_values,
    long_turns,
    presets,
    register_types,
    requests,
    scenarios,
    settings,
    sibling_scenarios,
    spawn_scenarios,
    tools,
    unicode_texts,
)
from ._session import SessionMachine, SessionViolation, session_machine

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
