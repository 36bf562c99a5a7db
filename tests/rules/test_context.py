from collections.abc import Callable
from dataclasses import replace

import pytest

from harness.dialects import get_dialect
from harness.model import (
    Request,
    Text,
    Thinking,
)
from harness.rules._body import Body, message_frames
from harness.rules._context import Context, encoded, inherited_span, parent_span
from harness.scenarios import Scenario
from harness.subjects import Outcome

from .bad_subjects import CASES
from .scenarios import BY_ID
from .support import DIALECTS, REFERENCE, context, edited, finding


@pytest.mark.parametrize(
    ("scenario", "length"),
    [
        ("fork-model-calls", 4),
        ("fork-model", 4),
        ("fork-user", 4),  # the trailing user message is dropped
        ("continuable", 4),  # the completed turns
        ("spawn", 0),
    ],
)
def test_inherited_span_by_action_and_ending(scenario: str, length: int) -> None:
    assert len(inherited_span(BY_ID[scenario])) == length


def test_the_inherited_span_is_the_scenarios_not_a_rendering() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "openai")
    assert ctx.inherited == inherited_span(BY_ID["fork-model-calls"])
    thinking = ctx.inherited[1].parts[0]
    assert isinstance(thinking, Thinking)
    assert thinking.signature == "sig-1"  # as given, though chat completions cannot send it


@pytest.mark.parametrize(
    ("scenario", "length"),
    [("fork-model-calls", 3), ("fork-model", 3), ("fork-user", 3), ("continuable", 3)],
)
def test_the_parent_span_ends_before_the_last_inherited_model_message(
    scenario: str, length: int
) -> None:
    span = parent_span(BY_ID[scenario])
    assert len(span) == length
    assert inherited_span(BY_ID[scenario])[length].role == "model"


def test_a_spawns_parent_span_is_its_history_before_the_delegating_turn() -> None:
    assert parent_span(BY_ID["spawn"]) == BY_ID["spawn"].history[:1]


def test_inherited_end_and_offset_in_a_child() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "anthropic")
    child = ctx.children[0]
    end = ctx.inherited_end(child)
    assert child.frames[end - 1].name == "messages[3].content[1]"  # its last block
    assert child.frames[end].name == "messages[4]"  # the next message's header
    assert ctx.inherited_offset(child) == child.frames[end].start


def test_bodies_are_labelled_and_problems_collected() -> None:
    ref = REFERENCE.assemble(BY_ID["continuable-follow-ups"], "gemini")
    ctx = Context.read(BY_ID["continuable-follow-ups"], get_dialect("gemini"), ref)
    assert ctx.parent is not None
    assert [b.label for b in (ctx.parent, *ctx.children, *ctx.follow_ups)] == [
        "parent",
        "children[0]",
        "follow_ups[0]",
        "follow_ups[1]",
    ]
    assert ctx.problems == ()
    broken = Outcome("assembled", parent=b"{}", children=(b"nope",))
    bad = Context.read(BY_ID["fork-model"], get_dialect("gemini"), broken)
    assert [label for label, _ in bad.problems] == ["parent", "children[0]"]
    assert bad.children == ()


def test_cost_is_the_parents_prefix_bytes_the_child_cannot_reuse() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "openai")
    child = ctx.children[0]
    assert ctx.divergence(child) is None
    cost = ctx.cost(child)
    assert cost.lost_bytes == 0
    assert cost.child_bytes == child.stream.length


def test_cost_never_exceeds_the_childs_own_prefix() -> None:
    ctx = context(CASES["pruned"].subject, "fork-model-calls", "openai")
    child = ctx.children[0]
    assert ctx.parent is not None
    short = Outcome(
        "assembled",
        parent=REFERENCE.assemble(BY_ID["fork-model-calls"], "openai").parent,
        children=(b'{"model":"model-large","messages":[{"role":"user","content":"x"}]}',),
    )
    tiny = Context.read(BY_ID["fork-model-calls"], get_dialect("openai"), short)
    cost = tiny.cost(tiny.children[0])
    assert cost.lost_bytes <= cost.child_bytes
    assert cost.share <= 1.0
    assert ctx.cost(child).share <= 1.0


def test_a_settings_change_costs_the_prefix_it_invalidates() -> None:
    """A changed model is keyed for the whole request; a changed tool choice for the
    messages only (Anthropic's cache model): each loses what it invalidates of the parent."""
    for key, value in (("model", "another-model"), ("tool_choice", {"type": "any"})):
        subject = edited(f"{key}-changed", body=_set(key, value))
        ctx = context(subject, "fork-model-calls", "anthropic")
        child = ctx.children[0]
        assert ctx.parent is not None
        cost = ctx.cost_from(child)
        assert cost.cause == "settings"
        parent = ctx.parent.priced
        first = next(i for i, u in enumerate(parent.view.units) if u.family == "history")
        whole, messages = parent.total, parent.total - parent.tokens[first]
        assert cost.tokens == (whole if key == "model" else messages)
        assert 0 < messages < whole
        assert ctx.cost(child).tokens == 0  # no divergence: the loss is the setting's alone


def _set(key: str, value: object) -> Callable[..., dict[str, object]]:
    def edit(
        body: dict[str, object], scenario: Scenario, dialect: str, i: int
    ) -> dict[str, object]:
        return {**body, key: value}

    return edit


def test_why_no_prefix_is_expected() -> None:
    assert context(REFERENCE, "fork-model", "openai").prefix_unexpected() is None
    assert "degraded" in (context(REFERENCE, "degraded", "openai").prefix_unexpected() or "")
    assert "spawned" in (context(REFERENCE, "spawn", "openai").prefix_unexpected() or "")
    none = Context.read(BY_ID["fork-model"], get_dialect("openai"), Outcome("assembled"))
    assert "no parent body" in (none.prefix_unexpected() or "")


def test_recursion_degradation_and_tasks_come_from_the_scenario() -> None:
    assert context(REFERENCE, "recursive", "gemini").recursive
    assert not context(REFERENCE, "fork-model", "gemini").recursive
    tagged = replace(BY_ID["recursive"], known_fork_child=False)
    outcome = REFERENCE.assemble(BY_ID["fork-model"], "gemini")
    # the reference's own tag in the history says nothing: the field does
    assert not Context.read(tagged, get_dialect("gemini"), outcome).recursive
    assert context(REFERENCE, "degraded", "gemini").degraded
    siblings = context(REFERENCE, "siblings", "gemini")
    assert (siblings.task(0), siblings.task(1), siblings.task(2)) == (
        "Research option A.",
        "Research option B.",
        None,
    )
    continuable = context(REFERENCE, "continuable", "gemini")
    assert continuable.task(0) == BY_ID["continuable"].continuation.task  # type: ignore[union-attr]


def test_encoded_is_the_text_inside_a_json_string() -> None:
    assert encoded('say "hi"\n') == b'say \\"hi\\"\\n'


def _drop_inherited(keep: int) -> object:
    """A child edit: only the first ``keep`` inherited messages, then the task message (the
    child's own last message), as a runtime that rebuilds a shortened history does."""

    def edit(request: Request, scenario: Scenario, index: int) -> Request:
        span = len(inherited_span(scenario))
        return replace(request, history=(*request.history[:keep], *request.history[span:]))

    return edit


@pytest.mark.parametrize("dialect", ["openai", "openai-responses", "anthropic"])
def test_a_child_that_drops_inherited_messages_sends_its_task_after_what_it_kept(
    dialect: str,
) -> None:
    subject = edited("drops-the-answer", child=_drop_inherited(1))
    ctx = context(subject, "fork-model", dialect)
    (child,) = ctx.children
    assert len(ctx.inherited) == 4
    assert ctx.inherited_count(child) == 1
    assert finding(subject, "fork-model", dialect, "task-after-prefix").status == "pass"
    assert finding(subject, "fork-model", dialect, "history-inherited").status == "fail"
    found = finding(subject, "fork-model", dialect, "alternation")
    if get_dialect(dialect).facts.consecutive_turns == "alternate":
        assert found.status == "fail"
        assert found.message.endswith("stops short of the model turn here")
    else:  # the two user turns are combined or read as they are: the loss is history's
        assert found.status == "pass"


def test_a_task_written_into_an_inherited_message_is_inside_the_span() -> None:
    def into_a_user_turn(request: Request, scenario: Scenario, index: int) -> Request:
        history = list(request.history)
        history[2] = replace(history[2], parts=(*history[2].parts, Text(scenario.directives[0])))
        return replace(request, history=tuple(history))

    subject = edited("task-in-a-user-turn", child=into_a_user_turn)
    ctx = context(subject, "fork-model", "openai-responses")
    assert ctx.inherited_count(ctx.children[0]) == len(ctx.inherited)
    found = finding(subject, "fork-model", "openai-responses", "task-after-prefix")
    assert found.status == "fail"
    assert "inherited message 2" in found.message


def _contexts() -> list[tuple[Context, Body]]:
    found = []
    for scenario in BY_ID:
        for dialect in DIALECTS:
            ctx = context(REFERENCE, scenario, dialect)
            found += [(ctx, b) for b in (ctx.parent, *ctx.children, *ctx.follow_ups) if b]
    return found


def test_message_spans_and_the_inherited_end_are_the_items_before_them() -> None:
    for ctx, body in _contexts():
        history = body.request.history
        counts = message_frames(ctx.dialect, history)
        first = body.items[body.history_start] if body.history_start < body.frame_count else 0
        for k in range(len(history)):
            start, end = ctx.message_span(body, k)
            items = {body.items[i] for i in range(start, end)}
            before = (first or 0) + sum(counts[:k])
            assert items <= set(range(before, before + counts[k])), (body.label, k)
            assert start == next(
                (
                    i
                    for i in range(body.history_start, body.frame_count)
                    if (body.items[i] or 0) >= before
                ),
                body.frame_count,
            )
        inherited = ctx.inherited_count(body)
        assert ctx.inherited_end(body) == min(
            ctx.message_span(body, inherited)[0], body.frame_count
        )
