"""Scenarios: the inputs subjects assemble requests for, and their language-neutral JSON."""

from ._checks import ScenarioFormatError
from ._history import (
    HistoryEnding,
    calls_answered,
    check_history,
    completed_prefix,
    history_ending,
    history_problems,
)
from ._json import load_fixtures, scenario_from_json, scenario_to_json
from ._refs import inline_refs
from ._scenario import (
    ACTIONS,
    CAPTURED,
    Action,
    Continuation,
    FollowUp,
    Lifecycle,
    Scenario,
    lifecycle_of,
)
from ._send_message import (
    SEND_MESSAGE,
    SEND_MESSAGE_TOOL,
    has_send_message,
    parent_preset,
    with_send_message,
)

__all__ = [
    "ACTIONS",
    "CAPTURED",
    "SEND_MESSAGE",
    "SEND_MESSAGE_TOOL",
    "Action",
    "Continuation",
    "FollowUp",
    "HistoryEnding",
    "Lifecycle",
    "Scenario",
    "ScenarioFormatError",
    "calls_answered",
    "check_history",
    "completed_prefix",
    "has_send_message",
    "history_ending",
    "history_problems",
    "inline_refs",
    "lifecycle_of",
    "load_fixtures",
    "parent_preset",
    "scenario_from_json",
    "scenario_to_json",
    "with_send_message",
]
