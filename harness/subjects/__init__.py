"""Subjects: the implementations under test, and what they give back for a scenario."""

from ._base import Outcome, OutcomeStatus, Subject
from ._reference import ReferenceSubject, inherited_parent_request, parent_preset

__all__ = [
    "Outcome",
    "OutcomeStatus",
    "ReferenceSubject",
    "Subject",
    "inherited_parent_request",
    "parent_preset",
]
