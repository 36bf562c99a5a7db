"""The reference passes every rule on generated scenarios, in every dialect."""

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.model import Message, Preset, Request
from harness.rules import evaluate
from harness.scenarios import Action, Continuation, Scenario
from harness.strategies import histories, presets, requests

from .support import DIALECTS, REFERENCE

ACTIONS: tuple[Action, ...] = ("continuable", "spawn")
DIRECTIVES = ("Directive A for the first worker.", "Directive B for the second worker.")


def _assert_clean(scenario: Scenario) -> None:
    for dialect in DIALECTS:
        result = evaluate(scenario, dialect, REFERENCE.assemble(scenario, dialect))
        alarms = [(f.rule, f.message) for f in result.findings if f.status in ("fail", "warning")]
        assert not alarms, (dialect, alarms)


@settings(max_examples=50, deadline=None)
@given(requests(), st.booleans(), st.integers(1, 2))
def test_generated_forks_and_siblings_pass(request: Request, snapshot: bool, count: int) -> None:
    last = request.history[-1]
    tool = last.function_calls[0].name if last.function_calls else "agent"
    scenario = Scenario(
        "generated",
        "fork" if count == 1 else "siblings",
        request.preset,
        request.history,
        directives=DIRECTIVES[:count],
        fork_tool=tool,
        snapshot=snapshot,
        default_tools=request.preset.tools[:1],
    )
    _assert_clean(scenario)


@settings(max_examples=50, deadline=None)
@given(presets(), histories(min_turns=2), st.sampled_from(ACTIONS))
def test_generated_continuable_forks_and_spawns_pass(
    preset: Preset, history: tuple[Message, ...], action: Action
) -> None:
    last = history[-1]
    tool = last.function_calls[0].name if last.function_calls else "agent"
    continuation = Continuation("Port the fix and report back.", "agent-1")
    scenario = Scenario(
        "generated",
        action,
        preset,
        history,
        fork_tool=tool,
        continuation=continuation if action == "continuable" else None,
        prompt="Find where the last token is dropped." if action == "spawn" else None,
        answer="Line 42.",
    )
    _assert_clean(scenario)
