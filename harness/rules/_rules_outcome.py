"""well-formed and subject-error: whether the outcome can be judged at all.

The engine runs only these two when a body does not parse or the subject errored, and marks
every other rule not applicable, so one broken body gives one clear failure, not a cascade.
"""

from __future__ import annotations

from collections.abc import Callable

from ._context import Context
from ._evidence import at
from ._report import Finding

__all__ = ["CHECKS"]


def _missing(ctx: Context) -> str | None:
    """What the outcome lacks for its action; None when it has every body it should."""
    scenario, outcome = ctx.scenario, ctx.outcome
    if outcome.status == "rejected":
        if scenario.lifecycle != "one-shot":
            return f"a {scenario.action} is rejected; only a one-shot fork may be"
        return None
    wanted = len(scenario.directives) if scenario.action in ("fork", "siblings") else 1
    if len(outcome.children) != wanted:
        return f"{len(outcome.children)} child bodies where the {scenario.action} makes {wanted}"
    spec = scenario.continuation
    if (
        spec is not None
        and scenario.action == "continuable"
        and (len(outcome.follow_ups) != len(spec.follow_ups))
    ):
        return (
            f"{len(outcome.follow_ups)} follow-up bodies for "
            f"{len(spec.follow_ups)} scripted exchanges"
        )
    if scenario.action == "spawn" and outcome.parent_next is None:
        return "no parent_next body: the parent's request after the spawn's answer is missing"
    return None


def well_formed(ctx: Context) -> Finding:
    rule = "well-formed"
    if ctx.problems:
        label, why = ctx.problems[0]
        more = f" (and {len(ctx.problems) - 1} more bodies)" if len(ctx.problems) > 1 else ""
        evidence = at(None, None, body=label, reason=why)
        return Finding(rule, "fail", why + more, evidence)
    missing = _missing(ctx)
    if missing is not None:
        return Finding(rule, "fail", missing, at(None, None, body="outcome", reason=missing))
    count = sum(
        b is not None for b in (ctx.parent, ctx.parent_next, *ctx.children, *ctx.follow_ups)
    )
    message = f"{count} bodies read as {ctx.dialect.name} requests; the outcome is complete"
    return Finding(rule, "pass", message)


def subject_error(ctx: Context) -> Finding:
    rule, outcome = "subject-error", ctx.outcome
    if outcome.status == "errored":
        reason = f"the subject errored: {outcome.message or 'no message'}"
        return Finding(rule, "fail", reason, at(None, None, body="outcome", reason=reason))
    return Finding(rule, "pass", f"the subject answered: {outcome.status}")


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "well-formed": well_formed,
    "subject-error": subject_error,
}
