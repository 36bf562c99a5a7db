"""Reports for people (terminal text), machines (JSON) and CI (JUnit XML)."""

from ._check import check_json, check_junit, check_text
from ._diff import DiffSubjects, diff_json, diff_text
from ._rules_json import rules_json
from ._rules_junit import rules_junit
from ._rules_text import rules_text

__all__ = [
    "DiffSubjects",
    "check_json",
    "check_junit",
    "check_text",
    "diff_json",
    "diff_text",
    "rules_json",
    "rules_junit",
    "rules_text",
]
