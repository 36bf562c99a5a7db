from dataclasses import replace

import pytest

from harness.model import Request
from harness.rules._accepted import accepted_head, accepted_system, accepted_tools, same_frames

from .support import DIALECTS, REFERENCE, context, edited, finding


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_override_is_named_when_it_explains_the_head(dialect: str) -> None:
    persona = context(REFERENCE, "continuable-persona", dialect)
    assert accepted_system(persona, persona.children[0]) == "a restored persona"
    assert accepted_head(persona, persona.children[0]) == "a restored persona"
    filtered = context(REFERENCE, "continuable-filtered", dialect)
    assert accepted_tools(filtered, filtered.children[0]) == (
        "a restored tool filter removing agent, send_message"
    )
    structured = context(REFERENCE, "continuable-structured", dialect)
    child = structured.children[0]
    assert accepted_system(structured, child) == "a structured-output section"
    assert accepted_tools(structured, child) == "the structured-output tool report"
    assert accepted_head(structured, child) == (
        "a structured-output section and the structured-output tool report"
    )


def test_nothing_is_accepted_outside_continuable_forks_or_without_a_change() -> None:
    fork = context(REFERENCE, "fork-model", "openai")
    assert accepted_system(fork, fork.children[0]) is None
    assert accepted_tools(fork, fork.children[0]) is None
    plain = context(REFERENCE, "continuable", "openai")
    assert accepted_head(plain, plain.children[0]) is None
    assert same_frames(plain, plain.parent, plain.children[0], "tools")  # type: ignore[arg-type]


def _renamed_persona(request: Request, *_: object) -> Request:
    return replace(request, preset=replace(request.preset, system=("Another persona.",)))


def test_a_head_change_beyond_the_override_is_not_accepted() -> None:
    subject = edited("other-persona", child=_renamed_persona)
    ctx = context(subject, "continuable-persona", "anthropic")
    assert accepted_system(ctx, ctx.children[0]) is None
    assert accepted_head(ctx, ctx.children[0]) is None
    tools = edited(
        "filter-and-reorder",
        child=lambda r, s, i: replace(r, preset=replace(r.preset, tools=r.preset.tools[::-1])),
    )
    ctx = context(tools, "continuable-filtered", "anthropic")
    assert accepted_tools(ctx, ctx.children[0]) is None


def _joined_system(request: Request, *_: object) -> Request:
    joined = "\n\n".join(request.preset.system)
    return replace(request, preset=replace(request.preset, system=(joined,) if joined else ()))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_section_joined_to_a_system_sent_as_one_text_is_accepted(dialect: str) -> None:
    # a runtime that sends its system as one text (the Responses instructions) joins the
    # structured-output section to it, as it joins its own blocks in parent and child
    subject = edited("joined-system", parent=_joined_system, child=_joined_system)
    ctx = context(subject, "continuable-structured", dialect)
    child = ctx.children[0]
    assert len(child.request.preset.system) == 1
    assert accepted_system(ctx, child) == "a structured-output section"
    assert (
        finding(subject, "continuable-structured", dialect, "system-identical").status == "warning"
    )
    assert finding(subject, "continuable-structured", dialect, "byte-prefix").status == "warning"
