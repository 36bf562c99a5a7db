"""Subjects: the implementations under test, how they are loaded and run, and what they give
back for a scenario."""

from ._base import Outcome, OutcomeStatus, Subject
from ._failure import FailureKind, SubjectFailure, SubjectStartError, is_subject_failure
from ._inprocess import InProcessSubject
from ._load import LoadedSubject, load_subject
from ._reference import ReferenceSubject, inherited_parent_request, parent_preset
from ._serve import serve
from ._subprocess import SubprocessOptions, SubprocessSubject

__all__ = [
    "FailureKind",
    "InProcessSubject",
    "LoadedSubject",
    "Outcome",
    "OutcomeStatus",
    "ReferenceSubject",
    "Subject",
    "SubjectFailure",
    "SubjectStartError",
    "SubprocessOptions",
    "SubprocessSubject",
    "inherited_parent_request",
    "is_subject_failure",
    "load_subject",
    "parent_preset",
    "serve",
]
