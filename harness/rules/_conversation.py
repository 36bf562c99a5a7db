"""append-only over a whole conversation: each request extends the one before it.

A captured program's every conversation (the parent's turns, a fork child's, a spawned
child's, their follow-ups) is cached turn by turn: the provider serves a request's prefix
from the entry its previous request wrote. A request that re-renders an old turn (a block
turned into a string, a call id or ``thoughtSignature`` dropped, an old message edited)
loses the cache from that byte on. The report has one finding per catalog rule so it lines
up with the others: append-only judged, well-formed for bodies that do not parse, every
other rule not applicable.

The bodies are read one at a time and each is compared with the one before it, so memory
holds two bodies, not the conversation: a long conversation costs time in proportion to its
bytes and memory in proportion to its largest pair of turns.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..dialects import Dialect, get_dialect
from ._body import Body, read_body
from ._catalog import catalog
from ._report import Finding, ScenarioReport, combine
from ._rules_continuable import extends

__all__ = ["evaluate_conversation"]

_RULE = "append-only"
_OTHERS = "a conversation's turns are checked for append-only only"


def evaluate_conversation(
    check_id: str,
    dialect: str,
    bodies: Iterable[tuple[str, bytes]],
    *,
    subject: str = "capture",
    strict: bool = False,
) -> ScenarioReport:
    """The report of a conversation whose requests, in order, are ``bodies`` (label, raw):
    an iterable read once, one body at a time (a generator reading them back keeps memory
    to two bodies). ``strict``: compared on the bytes as sent (``--strict-bytes``)."""
    d = get_dialect(dialect)
    found: dict[str, Finding] = {}
    findings: list[Finding] = []
    problem = _pairwise(bodies, d, findings, strict)
    if isinstance(problem, str):
        found["well-formed"] = Finding("well-formed", "fail", problem)
        # comparing around a gap would blame the wrong turn: no cascade
        found[_RULE] = Finding(_RULE, "not-applicable", "a body does not parse; see well-formed")
    else:
        found["well-formed"] = Finding(
            "well-formed", "pass", f"{problem} bodies read as {dialect} requests"
        )
        found[_RULE] = combine(_RULE, findings, none="fewer than two requests to compare")
    return ScenarioReport(
        check_id,
        dialect,
        subject,
        tuple(
            found.get(info.id, Finding(info.id, "not-applicable", _OTHERS)) for info in catalog()
        ),
    )


def _pairwise(
    bodies: Iterable[tuple[str, bytes]], dialect: Dialect, out: list[Finding], strict: bool
) -> int | str:
    """Append to ``out`` the append-only finding of each body against the one before it;
    how many bodies were read, or the first one that does not parse (label: why), at which
    reading stops (nothing after a gap is compared)."""
    before: Body | None = None
    count = 0
    for label, raw in bodies:
        body = read_body(label, raw, dialect, strict=strict)
        if isinstance(body, str):
            return f"{label}: {body}"
        if before is not None:
            # a changed setting is a warning: whether it costs the cache is settings-identical's
            out.append(extends(before, body, settings="warning"))
        before, count = body, count + 1
    return count
