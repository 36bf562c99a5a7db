from dataclasses import replace

import pytest

from harness.model import FunctionResponse, Message, Request, Text

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
