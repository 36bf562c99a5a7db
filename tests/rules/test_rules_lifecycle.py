from dataclasses import replace

import pytest

from harness.model import FunctionCall, Message, Request, Text, freeze
from harness.scenarios import Scenario
from harness.subjects import Outcome

from .bad_subjects import CASES
from .support import DIALECTS, REFERENCE, edited, finding


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_reference_rejects_a_fork_inside_a_fork_child(dialect: str) -> None:
    found = finding(REFERENCE, "recursive", dialect, "recursion-rejected")
    assert found.status == "pass"
    assert found.message.startswith("the fork inside a fork child is rejected: Fork refused")
    ordinary = finding(REFERENCE, "fork-model", dialect, "recursion-rejected")
    assert (ordinary.status, ordinary.message) == (
        "not-applicable",
        "the fork's requester is not a fork child",
    )


def test_a_fork_made_inside_a_fork_child_fails_pointing_at_the_tag() -> None:
    found = finding(
        CASES["recursion-allowed"].subject, "recursive", "anthropic", "recursion-rejected"
    )
    assert found.status == "fail"
    assert found.message == "a fork inside a fork child is assembled, with 1 child body"
    assert found.evidence is not None
    assert found.evidence.segment == "messages[0]"
    assert found.evidence.window is not None
    assert found.evidence.window.text[found.evidence.window.caret :].startswith(
        "<fork-boilerplate>"
    )


def test_rejected_with_bodies_or_rejecting_an_ordinary_fork_fails() -> None:
    def rejected_anyway(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        made = CASES["recursion-allowed"].subject.assemble(scenario, dialect)
        return replace(result, children=made.children)

    found = finding(
        edited("both", outcome=rejected_anyway), "recursive", "openai", "recursion-rejected"
    )
    assert found.message == "a fork inside a fork child is rejected, with 1 child body"

    def refuse(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        return Outcome("rejected", parent=result.parent, message="no forks today")

    misfire = finding(
        edited("refuser", outcome=refuse), "fork-model", "openai", "recursion-rejected"
    )
    assert misfire.message == "rejected a fork whose requester is not a fork child: no forks today"


def test_degraded_forks_are_noted_and_a_missing_child_fails() -> None:
    note = finding(REFERENCE, "degraded", "gemini", "degraded-fallback")
    assert note.status == "note"
    assert "no shared prefix is expected" in note.message
    assert finding(REFERENCE, "fork-model", "gemini", "degraded-fallback").status == (
        "not-applicable"
    )
    failed = finding(CASES["degraded-no-child"].subject, "degraded", "gemini", "degraded-fallback")
    assert failed.status == "fail"
    assert failed.message == (
        "without cache-safe parameters the subject made no child "
        "(rejected: no cache-safe parameters yet; fork refused)"
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_reference_spawn_is_isolated(dialect: str) -> None:
    found = finding(REFERENCE, "spawn", dialect, "spawn-isolated")
    assert found.status == "pass"
    assert found.message == "children[0]: 1 message(s), none of the parent's (all 2 bodies)"


def test_a_spawn_carrying_parent_text_fails() -> None:
    found = finding(CASES["spawn-leaks"].subject, "spawn", "gemini", "spawn-isolated")
    assert found.status == "fail"
    assert found.message.startswith(
        "children[0]: message 0 carries the parent's text 'The parser test fails."
    )
    assert found.evidence is not None
    assert found.evidence.segment == "contents[0]"


def test_a_spawn_carrying_a_parent_call_id_fails() -> None:
    def with_call(request: Request, *_: object) -> Request:
        call = FunctionCall("agent", freeze({"prompt": "Find it"}), id="call_s")
        history = (*request.history, Message("model", (Text("..."), call)))
        return replace(request, history=history)

    found = finding(edited("call-id", child=with_call), "spawn", "anthropic", "spawn-isolated")
    assert found.message.startswith("children[0]: message 1 carries the parent's call id 'call_s'")


def test_a_parent_grown_by_the_childs_exchanges_fails() -> None:
    found = finding(CASES["spawn-parent-grows"].subject, "spawn", "openai", "spawn-isolated")
    assert found.status == "fail"
    assert found.message.startswith(
        "parent_next adds 6 messages (model/user/model/user/model/user)"
    )
    assert found.evidence is not None
    assert found.evidence.body == "parent_next"


def test_a_rewritten_parent_next_fails() -> None:
    def rewritten(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        other = replace(
            scenario, history=(Message("user", (Text("Other."),)), *scenario.history[1:])
        )
        return replace(result, parent_next=REFERENCE.assemble(other, dialect).parent_next)

    found = finding(edited("rewritten", outcome=rewritten), "spawn", "anthropic", "spawn-isolated")
    assert found.message.startswith("parent_next rewrites the parent's request at byte ")
    assert found.evidence is not None
    assert found.evidence.against == "parent"
