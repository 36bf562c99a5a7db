from dataclasses import replace

import pytest

from harness.model import Request, Thinking, freeze
from harness.rules import evaluate

from .bad_subjects import CASES
from .scenarios import BY_ID
from .support import DIALECTS, REFERENCE, edited, finding


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "scenario", ["fork-model-calls", "fork-model", "fork-user", "siblings", "continuable"]
)
def test_the_reference_keeps_history_and_call_args(dialect: str, scenario: str) -> None:
    assert finding(REFERENCE, scenario, dialect, "history-inherited").status == "pass"
    assert finding(REFERENCE, scenario, dialect, "call-args-kept").status == "pass"


def test_nothing_to_inherit_is_not_applicable() -> None:
    found = finding(REFERENCE, "recursive", "openai", "history-inherited")
    assert found.status == "not-applicable"  # rejected: no body at all
    assert found.message == "no child body to check"
    spawn = finding(REFERENCE, "spawn", "openai", "history-inherited")
    assert spawn.status == "not-applicable"
    first_turn = finding(REFERENCE, "degraded", "openai", "call-args-kept")
    assert (first_turn.status, first_turn.message) == (
        "not-applicable",
        "the scenario's inherited span is empty",
    )


@pytest.mark.parametrize("key", ["thinking-stripped", "images-pruned", "pruned", "environment"])
def test_rewritten_inherited_messages_fail(key: str) -> None:
    found = finding(CASES[key].subject, "fork-model-calls", "anthropic", "history-inherited")
    assert found.status == "fail"
    assert found.evidence is not None
    assert found.evidence.against == "parent"
    assert found.cost is not None
    assert found.cost.lost_bytes > 0


def test_a_child_history_shorter_than_the_span_fails() -> None:
    def truncated(request: Request, *_: object) -> Request:
        return replace(request, history=request.history[:2])

    found = finding(
        edited("truncated", child=truncated), "fork-model", "gemini", "history-inherited"
    )
    assert found.status == "fail"
    assert found.message == (
        "children[0]'s history ends after 2 messages; the parent's request, which it "
        "inherits, has 3"
    )


def test_the_inherited_tail_is_judged_by_content_not_rendering() -> None:
    def answer_dropped(request: Request, *_: object) -> Request:
        return replace(request, history=(*request.history[:3], *request.history[4:]))

    dropped = finding(
        edited("answer-dropped", child=answer_dropped), "fork-model", "openai", "history-inherited"
    )
    # the parent's request never held the answer: its bytes are all there, and losing the
    # answer costs none of them (a warning with its reason, not an error)
    assert dropped.status == "warning"
    assert "after the parent's messages, message 3 (model): the model text" in dropped.message
    assert dropped.message.endswith(
        "the parent's request never held it, so no cached prefix is lost"
    )
    assert dropped.cost is None

    def answer_thinking_dropped(request: Request, *_: object) -> Request:
        last = request.history[3]
        kept = tuple(p for p in last.parts if not isinstance(p, Thinking))
        history = (*request.history[:3], replace(last, parts=kept), *request.history[4:])
        return replace(request, history=history)

    subject = edited("tail-thinking", child=answer_thinking_dropped)
    assert finding(subject, "fork-model-calls", "anthropic", "history-inherited").status == "pass"


def test_the_child_is_compared_with_its_own_parent_not_the_scenario() -> None:
    """A subject that renders an old message its own way, in parent and child alike, loses
    no cache: history-inherited passes; parent-faithful warns about the rendering."""

    def no_thinking(request: Request, *_: object) -> Request:
        history = tuple(
            replace(m, parts=tuple(p for p in m.parts if not isinstance(p, Thinking)))
            for m in request.history
        )
        return replace(request, history=history)

    subject = edited("consistent", child=no_thinking, parent=no_thinking)
    assert finding(subject, "fork-model-calls", "anthropic", "history-inherited").status == "pass"
    assert finding(subject, "fork-model-calls", "anthropic", "byte-prefix").status == "pass"
    rendered = finding(subject, "fork-model-calls", "anthropic", "parent-faithful")
    assert rendered.status == "warning"
    assert "thinking parts dropped or redacted" in rendered.message


@pytest.mark.parametrize("dialect", DIALECTS)
def test_redacted_call_args_warn_with_cost_and_nothing_else(dialect: str) -> None:
    subject = CASES["args-redacted"].subject
    found = finding(subject, "fork-model-calls", dialect, "call-args-kept")
    assert found.status == "warning"
    assert "redacts the arguments of call agent (call_2) in inherited message 3" in found.message
    assert found.cost is not None
    assert 0 < found.cost.lost_bytes < found.cost.child_bytes
    assert finding(subject, "fork-model-calls", dialect, "history-inherited").status == "pass"


def test_args_changed_otherwise_fail_history_inherited() -> None:
    def other_args(request: Request, *_: object) -> Request:
        model = request.history[3]
        parts = tuple(
            replace(p, args=freeze({"directive": "something else"}))
            if p == model.function_calls[0]
            else p
            for p in model.parts
        )
        history = (*request.history[:3], replace(model, parts=parts), *request.history[4:])
        return replace(request, history=history)

    subject = edited("other-args", child=other_args)
    # the call is in the model turn the parent's request never held: no cached prefix lost
    assert finding(subject, "fork-model-calls", "openai", "history-inherited").status == "warning"
    assert finding(subject, "fork-model-calls", "openai", "call-args-kept").status == "pass"


def test_a_lost_answer_is_an_error_when_the_child_also_leaves_the_parents_prefix() -> None:
    def dated_without_answer(request: Request, *_: object) -> Request:
        preset = replace(request.preset, system=(*request.preset.system, "Today is Monday."))
        history = (*request.history[:3], *request.history[4:])
        return replace(request, preset=preset, history=history)

    subject = edited("dated-without-answer", child=dated_without_answer)
    found = finding(subject, "fork-model", "openai", "history-inherited")
    assert found.status == "fail"
    assert found.cost is not None
    assert found.cost.lost_bytes > 0


@pytest.mark.parametrize("dialect", ["anthropic", "gemini"])
def test_a_child_dropping_thinking_its_parent_replays_is_warned(dialect: str) -> None:
    # the parent keeps thinking on its own model turns (message 1): a child's copy of the
    # turn that forked it should keep that turn's thinking too
    scenario = BY_ID["fork-model-calls"]
    tail = scenario.history[3]
    with_thinking = replace(
        scenario,
        id="fork-thinking",
        history=(
            *scenario.history[:3],
            replace(tail, parts=(Thinking("Fork it.", "sig-9"), *tail.parts)),
        ),
    )
    kept = REFERENCE.assemble(with_thinking, dialect)
    assert evaluate(with_thinking, dialect, kept).finding("history-inherited").status == "pass"

    def dropped(request: Request, *_: object) -> Request:
        history = list(request.history)
        history[3] = replace(history[3], parts=history[3].parts[1:])
        return replace(request, history=tuple(history))

    outcome = edited("tail-thinking-dropped", child=dropped).assemble(with_thinking, dialect)
    found = evaluate(with_thinking, dialect, outcome).finding("history-inherited")
    assert found.status == "warning"
    assert "message 3 (model) lacks the thinking (signature 'sig-9') that the parent replays" in (
        found.message
    )
