"""Scenarios: the inputs subjects assemble requests for, and their language-neutral JSON."""

from ._checks import ScenarioFormatError
from ._history import (
    HistoryEnding,
    calls_answered,
    check_history,
    completed_prefix,
    extended_history,
    history_ending,
    history_problems,
)
from ._json import load_fixtures, scenario_from_json, scenario_to_json
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

__all__ = [
    "ACTIONS",
    "CAPTURED",
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
    "extended_history",
    "history_ending",
    "history_problems",
    "lifecycle_of",
    "load_fixtures",
    "scenario_from_json",
    "scenario_to_json",
]
