from dataclasses import replace

import pytest

from harness.dialects import get_dialect
from harness.model import FunctionCall, FunctionResponse, Message, Request, Text

from .bad_subjects import CASES
from .scenarios import SCENARIOS
from .support import DIALECTS, REFERENCE, edited, finding


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("rule", ["alternation", "call-pairing"])
def test_every_reference_body_alternates_and_pairs_its_calls(dialect: str, rule: str) -> None:
    for scenario in SCENARIOS:
        assert finding(REFERENCE, scenario.id, dialect, rule).status in ("pass", "not-applicable")
    assert finding(REFERENCE, "continuable-follow-ups", dialect, rule).message.endswith(
        "(all 3 bodies)"
    )


def test_a_second_user_turn_breaks_alternation() -> None:
    found = finding(CASES["alternation-broken"].subject, "fork-user", "gemini", "alternation")
    assert found.status == "fail"
    assert found.message == (
        "children[0]: message 5 has role user where model is due (user/model from a user turn)"
    )
    assert found.evidence is not None
    assert found.evidence.segment == "contents[5]"


def test_a_history_ending_with_the_model_fails_alternation() -> None:
    def no_task(request: Request, *_: object) -> Request:
        return replace(request, history=request.history[:-1])

    found = finding(edited("no-task", child=no_task), "fork-model", "anthropic", "alternation")
    assert found.status == "fail"
    assert found.message == "children[0]: message 3 is a model turn: nothing asks for a reply"


def test_an_unanswered_call_fails_pairing() -> None:
    found = finding(CASES["call-unpaired"].subject, "fork-model-calls", "openai", "call-pairing")
    assert found.status == "fail"
    assert "calls [agent#call_2], responses []" in found.message
    assert found.evidence is not None
    assert found.evidence.segment == "messages[7]"


def test_a_doubled_response_fails_pairing() -> None:
    def doubled(request: Request, *_: object) -> Request:
        closing = request.history[4]
        extra = FunctionResponse("agent", "again", id="call_2")
        parts = (*closing.parts[:1], extra, *closing.parts[1:])
        history = (*request.history[:4], Message("user", parts), *request.history[5:])
        return replace(request, history=history)

    found = finding(edited("doubled", child=doubled), "fork-model-calls", "gemini", "call-pairing")
    assert found.status == "fail"
    assert "responses [agent#call_2, agent#call_2]" in found.message


def test_text_after_open_calls_fails_pairing() -> None:
    def model_again(request: Request, *_: object) -> Request:
        history = (*request.history[:4], Message("model", (Text("More."),)), request.history[-1])
        return replace(request, history=history)

    subject = edited("model-again", child=model_again)
    found = finding(subject, "fork-model-calls", "anthropic", "call-pairing")
    assert found.message == (
        "children[0]: message 4 follows calls [agent#call_2] that were never answered"
    )


# --- gemini: call ids are optional, pairing by name and position -------------------------------


def _strip_ids(kind: type, *, rename: str | None = None, drop_last: bool = False) -> object:
    """A child edit: ids removed from every part of ``kind`` (calls or responses), and
    optionally one response renamed or the last response of the closing message dropped."""

    def edit(request: Request, *_: object) -> Request:
        history = []
        for message in request.history:
            parts = tuple(replace(p, id=None) if isinstance(p, kind) else p for p in message.parts)
            history.append(replace(message, parts=parts))
        closing = next(k for k, m in enumerate(history) if m.function_responses)
        parts = history[closing].parts
        if rename is not None:
            first = next(i for i, p in enumerate(parts) if isinstance(p, FunctionResponse))
            first_part = parts[first]
            assert isinstance(first_part, FunctionResponse)
            parts = (*parts[:first], replace(first_part, name=rename), *parts[first + 1 :])
        if drop_last:
            last = max(i for i, p in enumerate(parts) if isinstance(p, FunctionResponse))
            parts = parts[:last] + parts[last + 1 :]
        history[closing] = replace(history[closing], parts=parts)
        return replace(request, history=tuple(history))

    return edit


@pytest.mark.parametrize("kind", [FunctionCall, FunctionResponse])
def test_gemini_pairs_by_name_and_position_when_a_side_has_no_ids(kind: type) -> None:
    subject = edited(f"no-{kind.__name__}-ids", child=_strip_ids(kind))
    found = finding(subject, "fork-model-calls", "gemini", "call-pairing")
    assert found.status == "pass", found.message


def test_anthropic_and_openai_keep_strict_id_pairing() -> None:
    subject = edited("no-call-ids", child=_strip_ids(FunctionCall))
    for dialect in ("anthropic", "openai"):
        found = finding(subject, "fork-model-calls", dialect, "call-pairing")
        assert found.status == "fail", dialect


def test_gemini_still_fails_a_response_with_the_wrong_name() -> None:
    subject = edited("renamed", child=_strip_ids(FunctionCall, rename="not_a_call"))
    found = finding(subject, "fork-model-calls", "gemini", "call-pairing")
    assert found.status == "fail"
    assert "does not answer the calls before it one to one" in found.message


def test_gemini_still_fails_a_missing_response() -> None:
    subject = edited("missing", child=_strip_ids(FunctionCall, drop_last=True))
    found = finding(subject, "fork-model-calls", "gemini", "call-pairing")
    assert found.status == "fail"


def test_gemini_pairing_by_id_and_by_position() -> None:
    gemini = get_dialect("gemini")
    a, b = FunctionCall("read", {}, "1"), FunctionCall("read", {}, "2")
    assert gemini.calls_answered(
        (a, b), (FunctionResponse("read", 0, "2"), FunctionResponse("read", 0, "1"))
    )
    assert gemini.calls_answered((a, b), (FunctionResponse("read", 0), FunctionResponse("read", 0)))
    unnamed = (FunctionCall("read", {}), FunctionCall("grep", {}))
    assert gemini.calls_answered(
        unnamed, (FunctionResponse("grep", 0, "x"), FunctionResponse("read", 0))
    )
    assert not gemini.calls_answered((a,), (FunctionResponse("read", 0, "9"),))  # ids differ
    assert not gemini.calls_answered((a,), (FunctionResponse("grep", 0, "1"),))  # name differs
    assert not gemini.calls_answered((a, b), (FunctionResponse("read", 0),))
    assert not gemini.calls_answered(
        (a,), (FunctionResponse("read", 0), FunctionResponse("read", 0))
    )


def _context_turn(request: Request, *_: object) -> Request:
    """The runtime's own preamble as a user turn of its own before the user's first message
    (codex sends its environment context so), in every request it sends."""
    preamble = Message("user", (Text("<environment_context>cwd: /work</environment_context>"),))
    return replace(request, history=(preamble, *request.history))


@pytest.mark.parametrize("dialect", ["openai", "gemini"])
def test_a_repeat_the_parent_has_too_is_the_runtimes_shape(dialect: str) -> None:
    same = edited("context-turn", child=_context_turn, parent=_context_turn)
    found = finding(same, "fork-model", dialect, "alternation")
    assert found.status == "pass", found.message
    assert "as the parent's own request has them" in found.message
    own = edited("context-turn-child-only", child=_context_turn)
    found = finding(own, "fork-model", dialect, "alternation")
    assert found.status == "fail"
    assert found.message.startswith("children[0]: message 1 has role user where model is due")


def _context_after_task(request: Request, *_: object) -> Request:
    """The runtime's context as a user turn of its own after the last user turn."""
    context = Message("user", (Text("<runtime_context>cwd: /work</runtime_context>"),))
    return replace(request, history=(*request.history, context))


def test_a_repeat_of_a_role_the_parent_repeats_elsewhere_is_the_runtimes_shape() -> None:
    # the parent's first request has its context and prompt as two user turns; the child
    # sends its context after its task: the same pair, which the provider took from the parent
    subject = edited("context-after", parent=_context_turn, child=_context_after_task)
    found = finding(subject, "fork-model", "openai", "alternation")
    assert found.status == "pass", found.message


@pytest.mark.parametrize(
    ("dialect", "says"),
    [
        ("anthropic", "which Anthropic combines into one turn"),
        ("openai-responses", "which OpenAI reads as they are"),
    ],
)
def test_consecutive_turns_follow_the_dialects_facts(dialect: str, says: str) -> None:
    own = edited("context-after-child-only", child=_context_after_task)
    found = finding(own, "fork-model", dialect, "alternation")
    assert found.status == "pass", found.message
    assert found.message.endswith(f"messages take turns: 1 follows one of the same role, {says}")
    assert get_dialect("openai").facts.consecutive_turns == "alternate"
    assert finding(own, "fork-model", "openai", "alternation").status == "fail"
    # a history that ends with the model still asks for nothing, whatever the dialect
    no_task = edited("no-task-2", child=lambda r, *_: replace(r, history=r.history[:-1]))
    assert finding(no_task, "fork-model", dialect, "alternation").status == "fail"
