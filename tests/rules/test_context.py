import pytest

from harness.dialects import get_dialect
from harness.model import Thinking
from harness.rules._context import Context, encoded, inherited_span
from harness.subjects import Outcome

from .scenarios import BY_ID
from .support import REFERENCE, context


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


def test_the_inherited_span_is_read_back_through_the_dialect() -> None:
    anthropic = context(REFERENCE, "fork-model-calls", "anthropic")
    openai = context(REFERENCE, "fork-model-calls", "openai")
    assert isinstance(anthropic.inherited[1].parts[0], Thinking)
    assert anthropic.inherited[1].parts[0].signature == "sig-1"
    thinking = openai.inherited[1].parts[0]
    assert isinstance(thinking, Thinking)
    assert thinking.signature is None  # chat completions has no field for it
    assert openai.inherited_starts == (0, 1, 1 + 1, 2 + 2, 4 + 1)
    assert anthropic.inherited_starts == (0, 1, 2, 3, 4)


def test_inherited_end_and_offset_in_a_child() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "anthropic")
    child = ctx.children[0]
    end = ctx.inherited_end(child)
    assert child.frames[end - 1].name == "messages[3]"
    assert child.frames[end].name == "messages[4]"
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


def test_why_no_prefix_is_expected() -> None:
    assert context(REFERENCE, "fork-model", "openai").prefix_unexpected() is None
    assert "degraded" in (context(REFERENCE, "degraded", "openai").prefix_unexpected() or "")
    assert "spawned" in (context(REFERENCE, "spawn", "openai").prefix_unexpected() or "")
    none = Context.read(BY_ID["fork-model"], get_dialect("openai"), Outcome("assembled"))
    assert "no parent body" in (none.prefix_unexpected() or "")


def test_recursion_degradation_and_tasks_come_from_the_scenario() -> None:
    assert context(REFERENCE, "recursive", "gemini").recursive
    assert not context(REFERENCE, "fork-model", "gemini").recursive
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
