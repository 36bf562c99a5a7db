"""The reference subject in every dialect: bodies parse, children keep the parent's prefix."""

from __future__ import annotations

import orjson
import pytest

from harness.assemblers import DEFAULT_WORDING, Wording
from harness.dialects import all_dialects, get_dialect
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Settings,
    Text,
    Tool,
    freeze,
)
from harness.prefix import compare
from harness.scenarios import SEND_MESSAGE, Continuation, FollowUp, Scenario
from harness.subjects import ReferenceSubject, Subject, inherited_parent_request

DIALECTS = list(all_dialects())
TOOLS = (
    Tool("search", "Search.", freeze({"type": "object", "properties": {"q": {"type": "string"}}})),
    Tool(
        "agent",
        "Fork.",
        freeze({"type": "object", "properties": {"directive": {"type": "string"}}}),
    ),
)
PRESET = Preset(("You are an agent.",), TOOLS, Settings(model="m", temperature=0.2))
FORK_CALL = FunctionCall("agent", freeze({"directive": "look"}), id="c2")
HISTORY = (
    Message("user", (Text("hi"),)),
    Message("model", (FunctionCall("search", freeze({"q": "x"}), id="c1"),)),
    Message("user", (FunctionResponse("search", "result", id="c1"),)),
    Message("model", (Text("forking"), FORK_CALL)),
)
SUBJECT = ReferenceSubject()


def parsed(dialect: str, body: bytes | None):  # type: ignore[no-untyped-def]
    assert body is not None
    return get_dialect(dialect).parse(orjson.loads(body))


def test_is_a_subject_of_every_dialect_and_lifecycle() -> None:
    assert isinstance(SUBJECT, Subject)
    assert set(SUBJECT.dialects) == set(DIALECTS)
    assert SUBJECT.lifecycles == ("one-shot", "continuable", "spawn")


def test_inherited_parent_request_stops_before_the_last_model_message() -> None:
    request = inherited_parent_request(PRESET, HISTORY)
    assert request is not None
    assert request.history == HISTORY[:3]
    assert inherited_parent_request(PRESET, HISTORY[:1]) is None


@pytest.mark.parametrize("dialect", DIALECTS)
def test_fork_keeps_the_parent_prefix(dialect: str) -> None:
    outcome = SUBJECT.assemble(
        Scenario("f", "fork", PRESET, HISTORY, directives=("look",)), dialect
    )
    assert outcome.status == "assembled"
    assert len(outcome.children) == 1
    assert compare(parsed(dialect, outcome.parent), parsed(dialect, outcome.children[0])).preserved


@pytest.mark.parametrize("dialect", DIALECTS)
def test_siblings_share_everything_before_the_directive(dialect: str) -> None:
    calls = (FORK_CALL, FunctionCall("agent", freeze({"directive": "read"}), id="c3"))
    history = (*HISTORY[:3], Message("model", calls))
    outcome = SUBJECT.assemble(
        Scenario("s", "siblings", PRESET, history, directives=("look", "read")), dialect
    )
    a, b = outcome.children
    cut = a.rindex(b"look")
    assert a[:cut] == b[:cut]
    assert b[cut:].startswith(b"read")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_recursive_fork_is_rejected_without_a_child(dialect: str) -> None:
    child = Message("user", (Text(DEFAULT_WORDING.child_message("look")),))
    history = (*HISTORY[:3], Message("model", (Text("ok"),)), child, HISTORY[3])
    outcome = SUBJECT.assemble(Scenario("r", "fork", PRESET, history, directives=("x",)), dialect)
    assert outcome.status == "rejected"
    assert outcome.children == ()
    assert outcome.message == DEFAULT_WORDING.recursion_error


@pytest.mark.parametrize("dialect", DIALECTS)
def test_degraded_fork_has_no_parent_and_uses_the_fallback(dialect: str) -> None:
    scenario = Scenario(
        "d", "fork", PRESET, (Message("user", (Text("hi"),)),), directives=("x",), snapshot=False
    )
    outcome = SUBJECT.assemble(scenario, dialect)
    assert outcome.status == "assembled"
    assert outcome.parent is None
    assert (
        DEFAULT_WORDING.fallback_system
        in parsed(dialect, outcome.children[0]).request.preset.system
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_continuable_child_and_follow_up(dialect: str) -> None:
    history = (
        *HISTORY[:3],
        Message("model", (Text("done"),)),
        Message("user", (Text("fork now"),)),
    )
    step = FollowUp(Message("model", (Text("working"),)), Message("user", (Text("more"),)))
    scenario = Scenario(
        "c",
        "continuable",
        PRESET,
        history,
        continuation=Continuation("do it", "p-1", follow_ups=(step,)),
    )
    outcome = SUBJECT.assemble(scenario, dialect)
    parent, child = parsed(dialect, outcome.parent), parsed(dialect, outcome.children[0])
    assert compare(parent, child).preserved
    assert SEND_MESSAGE in [t.name for t in child.request.preset.tools]
    assert '"p-1"' in child.request.history[-1].text
    assert compare(child, parsed(dialect, outcome.follow_ups[0])).preserved


@pytest.mark.parametrize("dialect", DIALECTS)
def test_spawn_child_is_fresh_and_parent_grows_by_one_result(dialect: str) -> None:
    scenario = Scenario("p", "spawn", PRESET, HISTORY, prompt="Find x.", answer="42")
    outcome = SUBJECT.assemble(scenario, dialect)
    child = parsed(dialect, outcome.children[0]).request
    assert [m.text for m in child.history] == ["Find x."]
    after = parsed(dialect, outcome.parent_next).request
    assert after.history[:-1] == parsed(dialect, outcome.parent).request.history + HISTORY[3:]
    assert after.history[-1].function_responses[0].id == "c2"


def test_spawn_without_the_delegation_call_is_skipped() -> None:
    scenario = Scenario("p", "spawn", PRESET, HISTORY[:3], prompt="Find x.")
    outcome = SUBJECT.assemble(scenario, "openai")
    assert outcome.status == "skipped"
    assert "does not call 'agent'" in (outcome.message or "")


def test_the_wording_shapes_what_a_degraded_fork_sends() -> None:
    degraded = Scenario("d", "fork", PRESET, HISTORY, directives=("a",), snapshot=False)
    other = ReferenceSubject(Wording(fallback_system="Another fallback."))
    assert other.assemble(degraded, "openai") != SUBJECT.assemble(degraded, "openai")


def test_a_follow_up_that_fails_fails_in_every_dialect_after_those_before_it() -> None:
    done = (*HISTORY[:3], Message("model", (Text("done"),)), Message("user", (Text("go"),)))
    good = FollowUp(Message("model", (Text("working"),)), Message("user", (Text("more"),)))
    bad = FollowUp(Message("user", (Text("not a reply"),)), Message("user", (Text("more"),)))
    continuation = Continuation("t", "p", follow_ups=(good, bad))
    scenario = Scenario("c", "continuable", PRESET, done, continuation=continuation)
    for dialect in (*DIALECTS, *DIALECTS):
        with pytest.raises(ValueError, match="model_reply must be a Message with role 'model'"):
            SUBJECT.assemble(scenario, dialect)
