from dataclasses import replace

import pytest

from harness.assemblers import Wording
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Part,
    Request,
    Text,
    Thinking,
    freeze,
)
from harness.rules import evaluate
from harness.scenarios import Scenario
from harness.subjects import Outcome, ReferenceSubject

from .bad_subjects import CASES
from .scenarios import BY_ID
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


def test_a_fork_made_inside_a_fork_child_fails_pointing_at_the_new_child_message() -> None:
    found = finding(
        CASES["recursion-allowed"].subject, "recursive", "anthropic", "recursion-rejected"
    )
    assert found.status == "fail"
    assert found.message == "a fork inside a fork child is assembled, with 1 child body"
    assert found.evidence is not None
    assert found.evidence.segment == "messages[2]"
    assert "the scenario says its requester is a fork child" in (found.evidence.reason or "")


def test_the_fork_child_fact_is_the_scenarios_field_not_a_tag() -> None:
    """A runtime with its own marker (or none) passes as long as it honours the field."""
    own_tag = ReferenceSubject(Wording(boilerplate_tag="worker-rules"))
    found = finding(own_tag, "recursive", "openai", "recursion-rejected")
    assert found.status == "pass"
    untagged = replace(BY_ID["recursive"], known_fork_child=False, id="tagged-only")
    outcome = REFERENCE.assemble(BY_ID["fork-model"], "openai")
    report = evaluate(untagged, "openai", outcome)
    assert report.finding("recursion-rejected").status == "not-applicable"


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
    assert found.message == (
        "children[0]: 1 message(s), none of the parent's 2 texts, calls, results or images of "
        "16+ characters (all 2 bodies)"
    )


_RESULT = "def tokenize(src):\n    return src.split()  # drops the last token"
_LEAKY_SPAWN = Scenario(
    "spawn-rich",
    "spawn",
    BY_ID["spawn"].preset,
    (
        Message("user", (Text("The parser test fails. Find out why."),)),
        Message(
            "model",
            (
                Thinking("The tokenizer looks suspicious; read it first."),
                FunctionCall("read_file", freeze({"path": "src/parser/tokenizer.py"}), id="c1"),
            ),
        ),
        Message(
            "user",
            (
                FunctionResponse("read_file", freeze({"output": _RESULT}), id="c1"),
                Image(mime_type="image/png", data="iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"),
            ),
        ),
        Message("model", (FunctionCall("agent", freeze({"prompt": "Look"}), id="c2"),)),
    ),
    prompt="Check why the parser drops the last token; answer with the line number.",
    answer="Line 2.",
)


@pytest.mark.parametrize(
    ("leak", "what"),
    [
        (Text(f"Context: {_RESULT}"), "result"),
        (FunctionResponse("read_file", freeze({"output": _RESULT}), id="other"), "result"),
        (Text("The tokenizer looks suspicious; read it first."), "thinking"),
        (FunctionCall("read_file", freeze({"path": "src/parser/tokenizer.py"}), id="x"), "call"),
        (Image(mime_type="image/png", data="iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"), "image"),
    ],
)
def test_a_spawn_carrying_any_parent_content_fails(leak: Part, what: str) -> None:
    def leaky(request: Request, *_: object) -> Request:
        first = request.history[0]
        return replace(request, history=(Message("user", (*first.parts, leak)),))

    outcome = edited(f"leak-{what}", child=leaky).assemble(_LEAKY_SPAWN, "anthropic")
    found = evaluate(_LEAKY_SPAWN, "anthropic", outcome).finding("spawn-isolated")
    assert found.status == "fail", found.message
    assert f"carries the parent's {what}" in found.message


def test_the_reference_spawn_of_a_rich_parent_is_isolated() -> None:
    outcome = REFERENCE.assemble(_LEAKY_SPAWN, "anthropic")
    found = evaluate(_LEAKY_SPAWN, "anthropic", outcome).finding("spawn-isolated")
    assert found.status == "pass", found.message


def test_short_strings_shared_by_chance_are_no_leak() -> None:
    """The parent said "ok" and "Line 2."; a child that says them too leaks nothing."""
    short = replace(
        _LEAKY_SPAWN,
        id="spawn-short",
        history=(Message("user", (Text("ok"),)), *_LEAKY_SPAWN.history[1:]),
    )

    def says_ok(request: Request, *_: object) -> Request:
        first = request.history[0]
        return replace(request, history=(Message("user", (*first.parts, Text("ok"))),))

    outcome = edited("says-ok", child=says_ok).assemble(short, "openai")
    assert evaluate(short, "openai", outcome).finding("spawn-isolated").status == "pass"


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


def test_a_spawn_quoting_a_parent_result_as_json_text_in_any_key_order_fails() -> None:
    """The parent's result is an object; the child's prompt quotes it as JSON text in its
    original key order (and spacing): found by value, not by the canonical spelling."""
    record = {"zone": "eu-west-3", "replicas": 12, "alarms": ["disk", "latency"]}
    scenario = replace(
        _LEAKY_SPAWN,
        id="spawn-json-result",
        history=(
            *_LEAKY_SPAWN.history[:2],
            Message("user", (FunctionResponse("read_file", freeze(record), id="c1"),)),
            _LEAKY_SPAWN.history[3],
        ),
    )

    def quoting(request: Request, *_: object) -> Request:
        first = request.history[0]
        quoted = Text(
            'Context: {"zone": "eu-west-3", "replicas": 12, "alarms": ["disk", "latency"]}'
        )
        return replace(request, history=(Message("user", (*first.parts, quoted)),))

    outcome = edited("quotes-json", child=quoting).assemble(scenario, "openai")
    found = evaluate(scenario, "openai", outcome).finding("spawn-isolated")
    assert found.status == "fail", found.message
    assert "carries the parent's result" in found.message
    clean = REFERENCE.assemble(scenario, "openai")
    assert evaluate(scenario, "openai", clean).finding("spawn-isolated").status == "pass"
