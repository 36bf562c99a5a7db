"""system-identical, tools-identical, settings-identical: the child's head against the parent's.

System and tools are compared as the bytes of their prefix segments; settings as the dialect
reports them (plus any setting a dialect keeps in a prefix segment, such as a tool choice or an
output schema). A continuable child's accepted divergences make a difference a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson

from ..prefix import MISSING, compare_settings, tool_changes
from ._accepted import accepted_system, accepted_tools
from ._body import Body
from ._context import Context
from ._evidence import between
from ._report import Evidence, Finding, combine

__all__ = ["CHECKS"]


def _per_child(rule: str, ctx: Context, one: Callable[[Context, Body], Finding]) -> Finding:
    why = ctx.head_unexpected()  # a fork that inherits no history still has the parent's head
    if why is not None:
        return Finding(rule, "not-applicable", why)
    return combine(rule, [one(ctx, c) for c in ctx.children], none="no child body to check")


def system_identical(ctx: Context) -> Finding:
    return _per_child("system-identical", ctx, _system)


def _system(ctx: Context, child: Body) -> Finding:
    assert ctx.parent is not None
    evidence = between(
        ctx.parent.frames_of("system"),
        child.frames_of("system"),
        body=child.label,
        against="parent",
        what="system instruction",
    )
    rule = "system-identical"
    if evidence is None:
        return Finding(rule, "pass", f"{child.label} repeats the parent's system instruction")
    accepted = accepted_system(ctx, child)
    if accepted is not None:
        message = f"{child.label}: {accepted} changes the system instruction (accepted divergence)"
        return Finding(rule, "warning", message, evidence, ctx.cost(child))
    message = f"{child.label}'s system instruction differs at {evidence.path}: {evidence.reason}"
    return Finding(rule, "fail", message, evidence, ctx.cost(child))


def tools_identical(ctx: Context) -> Finding:
    return _per_child("tools-identical", ctx, _tools)


def _tools(ctx: Context, child: Body) -> Finding:
    assert ctx.parent is not None
    evidence = between(
        ctx.parent.frames_of("tools"),
        child.frames_of("tools"),
        body=child.label,
        against="parent",
        what="tool declarations",
    )
    rule = "tools-identical"
    if evidence is None:
        count = len(child.request.preset.tools)
        return Finding(rule, "pass", f"{child.label} repeats the parent's {count} tools")
    accepted = accepted_tools(ctx, child)
    if accepted is not None:
        message = f"{child.label}: {accepted} changes the tools (accepted divergence)"
        return Finding(rule, "warning", message, evidence, ctx.cost(child))
    message = f"{child.label}: {_tool_change(ctx, child)}; first difference at {evidence.path}"
    return Finding(rule, "fail", message, evidence, ctx.cost(child))


def _tool_change(ctx: Context, child: Body, most: int = 4) -> str:
    """What happened to the tools, matched by name on the wire: removed, added at, moved from
    one position to another, changed (and how), or only their key order changed."""
    assert ctx.parent is not None
    changes = tool_changes(ctx.parent.frames_of("tools"), child.frames_of("tools"))
    if not changes:
        return "a tool declaration differs in its bytes"
    said = [c.sentence for c in changes[:most]]
    if len(changes) > most:
        said.append(f"{len(changes) - most} more changes")
    return ", ".join(said)


def settings_identical(ctx: Context) -> Finding:
    return _per_child("settings-identical", ctx, _settings)


def _show(value: Any) -> str:
    if value is MISSING:
        return "(absent)"
    text = orjson.dumps(value).decode()
    return text if len(text) <= 60 else text[:59] + "…"


def _settings(ctx: Context, child: Body) -> Finding:
    """Each changed setting judged by what the provider's cache is keyed on (the dialect
    says): a keyed one is an error with the prefix it invalidates; another one costs no
    cache but leaves the child running with another configuration, a warning."""
    assert ctx.parent is not None
    dialect, rule = ctx.dialect, "settings-identical"
    names, changes = compare_settings(ctx.parent.parsed.settings, child.parsed.settings)
    segments = between(
        ctx.parent.frames_of("settings"),
        child.frames_of("settings"),
        body=child.label,
        against="parent",
        what="settings segments",
    )
    if not changes and segments is None:
        return Finding(rule, "pass", f"{child.label} keeps the parent's {len(names)} settings")
    keyed = [(c, scope) for c in changes if (scope := dialect.cache_scope(c.name)) is not None]
    lines = tuple(
        f"changed  {c.name}: {_show(c.parent)} -> {_show(c.fork)}"
        + ("" if dialect.cache_scope(c.name) else "  (no cache effect)")
        for c in changes
    )
    costs = [ctx.cost_from(child, keyed[0][0].name)] if keyed else []
    if segments is not None:
        costs.append(ctx.cost(child))
    cost = max(costs, key=lambda c: c.tokens, default=None)
    if segments is not None:
        evidence = replace(segments, diff=lines + segments.diff)
    else:
        first = keyed[0][0] if keyed else changes[0]
        reason = f"{_show(first.parent)} in the parent, {_show(first.fork)} in the child"
        evidence = Evidence(child.label, "parent", path=first.name, reason=reason, diff=lines)
    if keyed or segments is not None:
        what = {"request": "the whole cached prefix", "history": "the cached messages"}
        parts = [
            f"{c.name} ({dialect.facts.provider}'s cache is keyed on it: "
            f"{what.get(scope, f'the cached {scope} on')})"
            for c, scope in keyed
        ]
        if segments is not None:
            parts.append(f"{segments.path} (a prefix segment)")
        message = f"{child.label} changes {', '.join(parts)}"
        return Finding(rule, "fail", message, evidence, cost)
    names_changed = ", ".join(c.name for c in changes)
    message = (
        f"{child.label} changes {names_changed}: no cache effect on {dialect.facts.provider}, but "
        "the child does not run with the parent's configuration"
    )
    return Finding(rule, "warning", message, evidence)


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "system-identical": system_identical,
    "tools-identical": tools_identical,
    "settings-identical": settings_identical,
}
