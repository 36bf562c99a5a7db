"""Rules: every check of README "What it checks" over a subject's outcome, with evidence and cost.

``evaluate`` judges one outcome; ``run_subject`` runs a subject over scenarios and dialects.
The catalog (ids, severities, scope, explanations) is ``catalog.toml`` in this package.
"""

from ._catalog import LIFECYCLES, WITH_MARKERS, RuleInfo, SeenIn, Severity, catalog, rule_info
from ._conversation import evaluate_conversation
from ._engine import EvaluationError, evaluate, run_subject
from ._report import (
    REFERENCE_PARENT_TOKENS,
    STATUSES,
    Cost,
    CostCause,
    Evidence,
    Finding,
    RequestUsage,
    ScenarioReport,
    Status,
    loses_cache,
)

__all__ = [
    "LIFECYCLES",
    "REFERENCE_PARENT_TOKENS",
    "STATUSES",
    "WITH_MARKERS",
    "Cost",
    "CostCause",
    "EvaluationError",
    "Evidence",
    "Finding",
    "RequestUsage",
    "RuleInfo",
    "ScenarioReport",
    "SeenIn",
    "Severity",
    "Status",
    "catalog",
    "evaluate",
    "evaluate_conversation",
    "loses_cache",
    "rule_info",
    "run_subject",
]
