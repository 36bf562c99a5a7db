"""Reports for people (terminal text, an HTML page), machines (JSON) and CI (JUnit XML).

The names are loaded on first use (module ``__getattr__``): a command imports only the report
it prints, so that ``diff`` never loads the checker behind the ``check`` reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy

if TYPE_CHECKING:
    from ._capture import (
        capture_json,
        capture_junit,
        capture_text,
        capture_verdict,
        capture_verdict_line,
    )
    from ._check import check_json, check_junit, check_text
    from ._diff import DIFF_FORMAT_VERSION, DiffSubjects, diff_json, diff_text
    from ._escape import display_width, printable, printable_lines, xml_safe
    from ._html import capture_html, check_html, write_html
    from ._markdown import outcomes_markdown
    from ._outcomes import Outcomes, check_outcomes, log_outcomes
    from ._rules_json import FORMAT_VERSION, outcomes_json, rules_json
    from ._rules_junit import rules_junit
    from ._rules_text import attention_lines, rules_text
    from ._schema import REPORT_SCHEMA, report_problems

__all__ = [
    "DIFF_FORMAT_VERSION",
    "FORMAT_VERSION",
    "REPORT_SCHEMA",
    "DiffSubjects",
    "Outcomes",
    "attention_lines",
    "capture_html",
    "capture_json",
    "capture_junit",
    "capture_text",
    "capture_verdict",
    "capture_verdict_line",
    "check_html",
    "check_json",
    "check_junit",
    "check_outcomes",
    "check_text",
    "diff_json",
    "diff_text",
    "display_width",
    "log_outcomes",
    "outcomes_json",
    "outcomes_markdown",
    "printable",
    "printable_lines",
    "report_problems",
    "rules_json",
    "rules_junit",
    "rules_text",
    "write_html",
    "xml_safe",
]

_MODULES = {
    "attention_lines": "_rules_text",
    "display_width": "_escape",
    "printable": "_escape",
    "printable_lines": "_escape",
    "xml_safe": "_escape",
    "capture_json": "_capture",
    "capture_junit": "_capture",
    "capture_text": "_capture",
    "capture_verdict": "_capture",
    "capture_verdict_line": "_capture",
    "DIFF_FORMAT_VERSION": "_diff",
    "FORMAT_VERSION": "_rules_json",
    "REPORT_SCHEMA": "_schema",
    "Outcomes": "_outcomes",
    "check_outcomes": "_outcomes",
    "log_outcomes": "_outcomes",
    "outcomes_json": "_rules_json",
    "outcomes_markdown": "_markdown",
    "report_problems": "_schema",
    "DiffSubjects": "_diff",
    "capture_html": "_html",
    "check_html": "_html",
    "write_html": "_html",
    "check_json": "_check",
    "check_junit": "_check",
    "check_text": "_check",
    "diff_json": "_diff",
    "diff_text": "_diff",
    "rules_json": "_rules_json",
    "rules_junit": "_rules_junit",
    "rules_text": "_rules_text",
}


__getattr__, __dir__ = lazy(__name__, globals(), _MODULES)
