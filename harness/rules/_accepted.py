"""Accepted divergences of a continuable child: which head changes are expected (the
``continuation`` fields of docs/protocol.md).

A restored tool filter or persona on cold resume, and a child-only structured-output tool and
system section, change the child's head by design. The scenario's continuation says which apply;
a child whose head differs from the parent's in exactly those ways is reported as a warning with
its cost, any other difference still fails.
"""

from __future__ import annotations

from collections.abc import Callable

from ._body import Body
from ._context import Context
from ._layout import Family

__all__ = ["accepted_head", "accepted_system", "accepted_tools", "same_frames"]


def same_frames(ctx: Context, parent: Body, child: Body, family: Family) -> bool:
    """Whether the two bodies' frames of ``family`` hold the same JSON, in order."""
    mine, theirs = parent.frames_of(family), child.frames_of(family)
    return [f.json for f in mine] == [f.json for f in theirs]


def accepted_system(ctx: Context, child: Body) -> str | None:
    """The accepted divergences that explain the child's system instruction, if they do."""
    spec = ctx.scenario.continuation
    if ctx.scenario.action != "continuable" or spec is None or ctx.parent is None:
        return None
    expected = ctx.parent.request.preset.system
    names: list[str] = []
    if spec.persona is not None and spec.persona != expected:
        expected = spec.persona
        names.append("a restored persona")
    if spec.output_tool is not None and spec.output_section:
        expected = (*expected, spec.output_section)
        names.append("a structured-output section")
    if names and child.request.preset.system == expected:
        return " and ".join(names)
    return None


def accepted_tools(ctx: Context, child: Body) -> str | None:
    """The accepted divergences that explain the child's tool declarations, if they do."""
    spec = ctx.scenario.continuation
    if ctx.scenario.action != "continuable" or spec is None or ctx.parent is None:
        return None
    tools = ctx.parent.request.preset.tools
    allowed = spec.tool_filter
    kept = tools if allowed is None else tuple(t for t in tools if t.name in allowed)
    names: list[str] = []
    if len(kept) < len(tools):
        removed = [t.name for t in tools if t not in kept]
        names.append(f"a restored tool filter removing {', '.join(removed)}")
    added: tuple[str, ...] = ()
    if spec.output_tool is not None:
        added = (spec.output_tool.name,)
        names.append(f"the structured-output tool {spec.output_tool.name}")
    child_tools = child.request.preset.tools
    if (
        names
        and child_tools[: len(kept)] == kept
        and tuple(t.name for t in child_tools[len(kept) :]) == added
    ):
        return " and ".join(names)
    return None


def accepted_head(ctx: Context, child: Body) -> str | None:
    """The accepted divergences when they explain every head difference; None otherwise."""
    assert ctx.parent is not None
    found: list[str] = []
    checks: tuple[tuple[Family, Callable[[Context, Body], str | None]], ...] = (
        ("system", accepted_system),
        ("tools", accepted_tools),
    )
    for family, accepted in checks:
        if same_frames(ctx, ctx.parent, child, family):
            continue
        name = accepted(ctx, child)
        if name is None:
            return None
        found.append(name)
    return " and ".join(found) or None
