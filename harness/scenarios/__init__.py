"""Scenarios: the inputs subjects assemble requests for."""

from ._scenario import (
    ACTIONS,
    Action,
    Continuation,
    FollowUp,
    Lifecycle,
    Scenario,
    lifecycle_of,
)

__all__ = [
    "ACTIONS",
    "Action",
    "Continuation",
    "FollowUp",
    "Lifecycle",
    "Scenario",
    "lifecycle_of",
]
