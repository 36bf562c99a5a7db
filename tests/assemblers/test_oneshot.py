from collections import Counter

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.assemblers import (
    DEFAULT_WORDING,
    ForkResult,
    Wording,
    assemble_fork,
    assemble_siblings,
    in_fork_child,
)
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Settings,
    Text,
    Tool,
    ToolChoice,
    freeze,
)
from harness.strategies import Ending, histories, requests

from .conftest import Wire

W = DEFAULT_WORDING
PRESET = Preset(
    system=("You are the parent.", "Project notes."),
    tools=(
        Tool("agent", "Fork a worker.", freeze({"type": "object", "properties": {}})),
        Tool("search", "Search.", freeze({"type": "object", "required": [], "properties": {}})),
    ),
    settings=Settings(model="m1", temperature=0.2, tool_choice=ToolChoice("auto")),
)
U1 = Message("user", (Text("Fix the build."),))
M1 = Message("model", (Text("On it."),))
SEARCH = FunctionCall("search", freeze({"q": "build"}), id="s1")
FORK_A = FunctionCall("agent", freeze({"directive": "Research A"}), id="f1")
FORK_B = FunctionCall("agent", freeze({"directive": "Modify B"}), id="f2")
U2 = Message("user", (Text("Split the work."),))
M2_CALLS = Message("model", (Text("Forking."), SEARCH, FORK_A, FORK_B))


def user(text: str) -> Message:
    return Message("user", (Text(text),))


def fork(history: tuple[Message, ...], directive: str = "Research A", **kw: object) -> ForkResult:
    return assemble_fork(history, directive, cache_safe=kw.pop("cache_safe", PRESET), **kw)  # type: ignore[arg-type]


# --- the three endings -------------------------------------------------------------------


def test_ending_with_model_keeps_the_history_and_sends_the_child_message() -> None:
    result = fork((U1, M1))
    assert result.ending == "model"
    assert result.inherited == result.history == (U1, M1)
    assert result.task == W.child_message("Research A")
    assert result.request == Request(PRESET, (U1, M1, user(result.task)))
    assert not result.degraded
    assert not result.rejected


def test_ending_with_calls_closes_them_with_placeholders_then_begins() -> None:
    result = fork((U1, M1, U2, M2_CALLS), fork_call=FORK_A)
    closing = Message(
        "user",
        (
            FunctionResponse("search", W.placeholder, id="s1"),
            FunctionResponse("agent", W.placeholder, id="f1"),
            FunctionResponse("agent", W.placeholder, id="f2"),
            Text(W.child_message("Research A")),
        ),
    )
    ack = Message("model", (Text(W.acknowledgement),))
    assert result.ending == "model_calls"
    assert result.inherited == (U1, M1, U2, M2_CALLS)
    assert result.history == (U1, M1, U2, M2_CALLS, closing, ack)
    assert result.task == "Begin."
    assert result.request == Request(PRESET, (*result.history, user("Begin.")))


def test_ending_with_user_drops_that_message() -> None:
    result = fork((U1, M1, U2))
    assert result.ending == "user"
    assert result.inherited == result.history == (U1, M1)
    assert result.task == W.child_message("Research A")
    assert result.request is not None
    assert result.request.history == (U1, M1, user(result.task))


def test_a_dropped_user_message_that_answered_calls_leaves_them_to_placeholders() -> None:
    answers = Message("user", (FunctionResponse("search", "3 hits", id="s1"), Text("more?")))
    history = (U1, Message("model", (SEARCH,)), answers)
    result = fork(history)
    assert result.inherited == history[:2]
    assert result.history[2].parts[0] == FunctionResponse("search", W.placeholder, id="s1")
    assert result.task == "Begin."


def test_empty_history_sends_the_child_message_alone() -> None:
    result = fork(())
    assert result.ending == "empty"
    assert result.request == Request(PRESET, (user(W.child_message("Research A")),))


# --- background, degradation, validation ------------------------------------------------


def test_parent_gets_the_background_placeholder_for_its_fork_call() -> None:
    result = fork((U1, M1, U2, M2_CALLS), fork_call=FORK_B, directive="Modify B")
    assert result.tool_result == FunctionResponse("agent", W.background_started, id="f2")
    assert fork((U1, M1)).tool_result is None


def test_fork_call_must_be_one_of_the_last_messages_calls() -> None:
    other = FunctionCall("agent", freeze({"directive": "x"}), id="zz")
    with pytest.raises(ValueError, match="fork_call is not one of the calls"):
        fork((U1, M1, U2, M2_CALLS), fork_call=other)
    with pytest.raises(ValueError, match="fork_call is not one of the calls"):
        fork((U1, M1), fork_call=FORK_A)


@pytest.mark.parametrize("directive", ["", "   \n"])
def test_an_empty_directive_is_refused(directive: str) -> None:
    with pytest.raises(ValueError, match="non-empty directive"):
        fork((U1, M1), directive)


def test_a_history_that_does_not_alternate_is_refused() -> None:
    with pytest.raises(ValueError, match=r"history\[1\] has role 'user'"):
        fork((U1, U2))


def test_without_cache_safe_params_the_fork_is_degraded_to_the_fallback() -> None:
    defaults = (Tool("read"), Tool("write"))
    result = fork((U1, M1), cache_safe=None, default_tools=defaults)
    assert result.degraded
    assert result.request is not None
    assert result.request.preset == Preset(system=(W.fallback_system,), tools=defaults)
    assert result.request.history == (U1, M1, user(W.child_message("Research A")))


def test_fallback_tools_must_have_unique_names() -> None:
    with pytest.raises(ValueError, match="duplicate names"):
        fork((U1, M1), cache_safe=None, default_tools=(Tool("a"), Tool("a")))


def test_other_wording_reaches_every_text() -> None:
    wording = Wording(
        boilerplate_tag="worker", placeholder="(elsewhere)", acknowledgement="OK.", begin="Go."
    )
    result = fork((U1, M1, U2, M2_CALLS), wording=wording)
    assert result.task == "Go."
    closing, ack = result.history[-2:]
    assert closing.parts[0] == FunctionResponse("search", "(elsewhere)", id="s1")
    assert closing.text.startswith("<worker>\n")
    assert ack.text == "OK."


# --- recursion guard ----------------------------------------------------------------------


def test_a_fork_inside_a_fork_child_is_refused_without_a_request() -> None:
    first = fork((U1, M1, U2, M2_CALLS), fork_call=FORK_A)
    assert first.request is not None
    again = FunctionCall("agent", freeze({"directive": "deeper"}), id="g1")
    child_history = (*first.request.history, Message("model", (again,)))
    result = fork(child_history, "deeper", fork_call=again)
    assert result.rejected
    assert result.request is None
    assert result.error == W.recursion_error
    assert result.tool_result == FunctionResponse(
        "agent", W.recursion_error, id="g1", is_error=True
    )


def test_a_runtime_that_knows_it_is_a_fork_refuses_too() -> None:
    result = fork((U1, M1), known_fork_child=True)
    assert result.rejected
    assert result.request is None
    assert result.tool_result is None


def test_a_fork_result_cannot_be_rejected_with_a_request() -> None:
    with pytest.raises(ValueError, match="rejected with an error and no request"):
        ForkResult("d", "model", (), (), "t", Request(PRESET), None, rejected=True)


# --- siblings -----------------------------------------------------------------------------


def test_siblings_differ_only_in_their_directive() -> None:
    a, b = assemble_siblings(
        (U1, M1, U2, M2_CALLS),
        ["Research A", "Modify B"],
        cache_safe=PRESET,
        fork_calls=[FORK_A, FORK_B],
    )
    assert a.request is not None
    assert b.request is not None
    assert a.request.history[:4] == b.request.history[:4]
    a_text, b_text = a.request.history[4].text, b.request.history[4].text
    assert a_text.removesuffix("Research A") == b_text.removesuffix("Modify B")
    assert a.request.history[4].parts[:-1] == b.request.history[4].parts[:-1]
    assert a.request.history[5:] == b.request.history[5:]
    assert a.tool_result is not None
    assert b.tool_result is not None
    assert (a.tool_result.id, b.tool_result.id) == ("f1", "f2")


def test_siblings_need_directives_and_matching_calls() -> None:
    with pytest.raises(ValueError, match="at least one directive"):
        assemble_siblings((U1, M1), [], cache_safe=PRESET)
    with pytest.raises(ValueError, match="at least one directive"):
        assemble_siblings((U1, M1), "Research A", cache_safe=PRESET)
    with pytest.raises(ValueError, match="2 directives but 1 fork calls"):
        assemble_siblings((U1, M1), ["a", "b"], cache_safe=PRESET, fork_calls=[FORK_A])


@pytest.mark.parametrize("history", [(U1, M1), (U1, M1, U2, M2_CALLS), (U1, M1, U2)])
def test_sibling_bodies_are_byte_identical_up_to_the_directive(
    wire: Wire, history: tuple[Message, ...]
) -> None:
    siblings = assemble_siblings(history, ["Research A", "Modify B"], cache_safe=PRESET)
    bodies = []
    for sibling in siblings:
        assert sibling.request is not None
        body = wire.body(sibling.request)
        at = body.rfind(orjson.dumps(sibling.directive)[1:-1])
        assert at > 0
        bodies.append((body[:at], body[at + len(sibling.directive) :]))
    assert bodies[0] == bodies[1]


# --- the fork keeps the parent's prefix, in every dialect ---------------------------------


@pytest.mark.parametrize(
    "history",
    [(U1, M1), (U1, M1, U2, M2_CALLS), (U1, M1, U2), ()],
    ids=["model", "model_calls", "user", "empty"],
)
def test_fork_segments_start_with_the_inherited_parent_segments(
    wire: Wire, history: tuple[Message, ...]
) -> None:
    result = fork(history)
    assert result.request is not None
    assert wire.starts_with(result.request, Request(PRESET, result.inherited))
    if result.ending != "user":
        assert wire.starts_with(result.request, Request(PRESET, history))


def test_a_degraded_fork_shares_no_system_with_the_parent(wire: Wire) -> None:
    result = fork((U1, M1), cache_safe=None)
    assert result.request is not None
    assert not wire.starts_with(result.request, Request(PRESET, (U1, M1)))
    assert W.fallback_system.encode() in wire.body(result.request)


@settings(max_examples=100, deadline=None)
@given(parent=requests())
def test_generated_forks_keep_the_parent_prefix_in_every_dialect(
    wire: Wire, parent: Request
) -> None:
    assume(not in_fork_child(parent.history))
    result = fork(parent.history, cache_safe=parent.preset)
    assert result.request is not None
    assert wire.starts_with(result.request, Request(parent.preset, result.inherited))


# --- properties over generated histories --------------------------------------------------


def _assert_alternating_and_paired(messages: tuple[Message, ...]) -> None:
    """Alternating from user; each user message answers the calls just before it one to one."""
    for i, message in enumerate(messages):
        assert message.role == ("user" if i % 2 == 0 else "model")
        if message.role == "user":
            calls = messages[i - 1].function_calls if i else ()
            assert Counter((c.id, c.name) for c in calls) == Counter(
                (r.id, r.name) for r in message.function_responses
            )
        else:
            assert not message.function_responses


@pytest.mark.parametrize("ending", ["model", "model_calls", "user"])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_every_ending_gives_a_valid_fork_history(ending: Ending, data: st.DataObject) -> None:
    history = data.draw(histories(ending=ending))
    assume(not in_fork_child(history))
    result = fork(history)
    assert result.request is not None
    assert history[: len(result.inherited)] == result.inherited
    assert result.history[: len(result.inherited)] == result.inherited
    if result.history:
        assert result.history[-1].role == "model"
        assert not result.history[-1].function_calls
    _assert_alternating_and_paired(result.request.history)
    assert result.request.history == (*result.history, user(result.task))
    assert result.request.preset is PRESET


@settings(max_examples=100, deadline=None)
@given(histories(ending="model_calls"))
def test_a_recursive_fork_never_produces_a_request(history: tuple[Message, ...]) -> None:
    assume(not in_fork_child(history))
    first = fork(history)
    assert first.request is not None
    again = FunctionCall("agent", freeze({"directive": "deeper"}), id="again")
    child = (*first.request.history, Message("model", (Text("forking"), again)))
    result = fork(child, "deeper", fork_call=again)
    assert result.rejected
    assert result.request is None
    assert result.tool_result is not None
    assert result.tool_result.is_error
