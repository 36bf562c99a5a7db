"""append-only over a whole conversation: each request extends the one before it.

A captured program's every conversation (the parent's turns, a fork child's, a spawned
child's, their follow-ups) is cached turn by turn: the provider serves a request's prefix
from the entry its previous request wrote. A request that re-renders an old turn (a block
turned into a string, a call id or ``thoughtSignature`` dropped, an old message edited)
loses the cache from that byte on. The report has one finding per catalog rule so it lines
up with the others: append-only judged, well-formed for bodies that do not parse, every
other rule not applicable.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from ..dialects import get_dialect
from ._body import Body, read_body
from ._catalog import catalog
from ._report import Finding, ScenarioReport, combine
from ._rules_continuable import extends

__all__ = ["evaluate_conversation"]

_RULE = "append-only"
_OTHERS = "a conversation's turns are checked for append-only only"


def evaluate_conversation(
    check_id: str, dialect: str, bodies: Sequence[tuple[str, bytes]], *, subject: str = "capture"
) -> ScenarioReport:
    """The report of a conversation whose requests, in order, are ``bodies`` (label, raw)."""
    d = get_dialect(dialect)
    read = [(label, read_body(label, raw, d)) for label, raw in bodies]
    problems = [f"{label}: {body}" for label, body in read if isinstance(body, str)]
    parsed = [body for _, body in read if isinstance(body, Body)]
    found: dict[str, Finding] = {}
    if problems:
        found["well-formed"] = Finding("well-formed", "fail", problems[0])
    else:
        found["well-formed"] = Finding(
            "well-formed", "pass", f"{len(parsed)} bodies read as {dialect} requests"
        )
    if problems:  # comparing around a gap would blame the wrong turn: no cascade
        found[_RULE] = Finding(_RULE, "not-applicable", "a body does not parse; see well-formed")
    else:
        # a changed setting is a warning here: whether it costs the cache is settings-identical's
        findings = [extends(b, a, settings="warning") for b, a in pairwise(parsed)]
        found[_RULE] = combine(_RULE, findings, none="fewer than two requests to compare")
    return ScenarioReport(
        check_id,
        dialect,
        subject,
        tuple(
            found.get(info.id, Finding(info.id, "not-applicable", _OTHERS)) for info in catalog()
        ),
    )
