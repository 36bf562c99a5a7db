"""Subjects: the implementations under test, how they are loaded and run, and what they give
back for a scenario."""

from ..protocol import Outcome, OutcomeStatus, Subject
from ._failure import (
    FailureKind,
    SubjectFailure,
    SubjectStartError,
    is_subject_failure,
    printable,
)
from ._inprocess import InProcessSubject, guarded_assemble
from ._load import LoadedSubject, load_subject
from ._reference import ReferenceSubject, inherited_parent_request
from ._serve import serve
from ._subprocess import MAX_SECONDS, SubprocessOptions, SubprocessSubject, timeout_problem

__all__ = [
    "MAX_SECONDS",
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
    "guarded_assemble",
    "inherited_parent_request",
    "is_subject_failure",
    "load_subject",
    "printable",
    "serve",
    "timeout_problem",
]
