"""Rules: every check of README "What it checks" over a subject's outcome, with evidence and cost.

``evaluate`` judges one outcome; ``run_subject`` runs a subject over scenarios and dialects.
The catalog (ids, severities, scope, explanations) is ``catalog.toml`` in this package.
"""

from ._catalog import LIFECYCLES, WITH_MARKERS, RuleInfo, SeenIn, Severity, catalog, rule_info
from ._conversation import evaluate_conversation
from ._engine import EvaluationError, evaluate, run_subject
from ._report import (
    BYTES_PER_TOKEN,
    STATUSES,
    Cost,
    Evidence,
    Finding,
    ScenarioReport,
    Status,
)

__all__ = [
    "BYTES_PER_TOKEN",
    "LIFECYCLES",
    "STATUSES",
    "WITH_MARKERS",
    "Cost",
    "EvaluationError",
    "Evidence",
    "Finding",
    "RuleInfo",
    "ScenarioReport",
    "SeenIn",
    "Severity",
    "Status",
    "catalog",
    "evaluate",
    "evaluate_conversation",
    "rule_info",
    "run_subject",
]
