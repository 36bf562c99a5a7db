"""Reports for people (terminal text) and machines (JSON)."""

from ._diff import DiffSubjects, diff_json, diff_text

__all__ = ["DiffSubjects", "diff_json", "diff_text"]
