import inspect
from collections.abc import Callable

import orjson
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from harness.check import generate
from harness.dialects import all_dialects
from harness.generation._scenarios import (
    _draw_continuables,
    _draw_forks,
    _draw_spawns,
    _Extent,
    _variants,
)
from harness.model import FunctionCall, Message
from harness.rules import evaluate
from harness.scenarios import (
    ACTIONS,
    SEND_MESSAGE,
    Scenario,
    calls_answered,
    history_ending,
    scenario_from_json,
    scenario_to_json,
)
from harness.strategies import (
    call_response_pairs,
    continuable_scenarios,
    fork_scenarios,
    scenarios,
    sibling_scenarios,
    spawn_scenarios,
)
from harness.subjects import ReferenceSubject

from .test_histories import SHRINK, check_alternating_and_paired

DIALECTS = st.sampled_from(tuple(all_dialects()))
FEW = settings(max_examples=25)
"""Scenarios are large draws; the ci profile's derandomized examples stay, just fewer."""


def declared(scenario: Scenario) -> set[str]:
    return {t.name for t in scenario.preset.tools}


@settings(max_examples=60)
@given(scenarios(), DIALECTS)
def test_the_reference_assembles_every_generated_scenario(scenario: Scenario, dialect: str) -> None:
    assert not scenario.problems()
    check_alternating_and_paired(scenario.history)
    called = {c.name for m in scenario.history for c in m.function_calls}
    assert called <= declared(scenario)
    outcome = ReferenceSubject().assemble(scenario, dialect)
    assert outcome.status == "assembled", outcome.message
    assert scenario_from_json(orjson.loads(orjson.dumps(scenario_to_json(scenario)))) == scenario


@pytest.mark.parametrize("ending", ["model", "model_calls", "user"])
@FEW
@given(data=st.data())
def test_forks_end_as_asked_and_call_the_fork_tool(ending: str, data: st.DataObject) -> None:
    scenario = data.draw(fork_scenarios(ending=ending))  # type: ignore[arg-type]
    assert history_ending(scenario.history) == ending
    assert len(scenario.directives) == 1
    fork_calls = [c for c in scenario.history[-1].function_calls if c.name == scenario.fork_tool]
    assert len(fork_calls) == (1 if ending == "model_calls" else 0)
    assert scenario.fork_tool in declared(scenario)


@FEW
@given(sibling_scenarios(min_siblings=3, max_siblings=3, ending="model_calls"))
def test_siblings_have_one_fork_call_per_directive(scenario: Scenario) -> None:
    calls = [c for c in scenario.history[-1].function_calls if c.name == scenario.fork_tool]
    assert [c.args["directive"] for c in calls] == list(scenario.directives)  # type: ignore[index]
    assert len({c.id for c in calls}) == 3


@FEW
@given(continuable_scenarios(cold_resume=True, structured_output=True, max_follow_ups=1))
def test_continuable_options_can_be_forced(scenario: Scenario) -> None:
    spec = scenario.continuation
    assert spec is not None
    assert spec.tool_filter is not None or spec.persona is not None
    assert spec.output_tool is not None
    assert spec.output_section
    assert spec.output_tool.name not in declared(scenario) | {SEND_MESSAGE}
    assert len(spec.follow_ups) <= 1
    for step in spec.follow_ups:
        assert calls_answered(step.reply.function_calls, step.message.function_responses)


@FEW
@given(continuable_scenarios(cold_resume=False, structured_output=False))
def test_continuable_options_can_be_ruled_out(scenario: Scenario) -> None:
    spec = scenario.continuation
    assert spec is not None
    assert (spec.tool_filter, spec.persona, spec.output_tool) == (None, None, None)


@FEW
@given(spawn_scenarios())
def test_spawns_delegate_their_prompt_in_the_last_call(scenario: Scenario) -> None:
    (call,) = scenario.history[-1].function_calls
    assert call.name == scenario.fork_tool == "task"
    assert call.args == {"prompt": scenario.prompt}


@FEW
@given(call_response_pairs(tool_names=("a", "b"), min_calls=2, max_calls=2, id_prefix="x"))
def test_call_response_pairs_answer_each_call_by_id_and_name(pair: tuple[Message, Message]) -> None:
    model, user = pair
    assert [c.id for c in model.function_calls] == ["x_0", "x_1"]
    assert [(r.id, r.name) for r in user.function_responses] == [
        (c.id, c.name) for c in model.function_calls
    ]


@FEW
@given(scenarios(actions=("spawn", "siblings")))
def test_scenarios_draw_only_the_actions_asked(scenario: Scenario) -> None:
    assert scenario.action in ("spawn", "siblings")


@pytest.mark.parametrize("action", ACTIONS)
def test_the_simplest_scenarios_are_small_and_readable(action: str) -> None:
    """Hypothesis tries the simplest example first and shrinks failures toward it."""
    simplest = settings(phases=[Phase.generate], max_examples=1, database=None)
    smallest = find(scenarios(actions=(action,)), lambda s: True, settings=simplest)  # type: ignore[arg-type]
    assert smallest.id == f"{action}-0"
    assert len(smallest.history) <= 2
    assert len(smallest.preset.tools) <= 2
    assert all(d == "0" for d in smallest.directives)
    calls = [p for p in smallest.history[-1].parts if isinstance(p, FunctionCall)]
    assert len(calls) <= 1


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: fork_scenarios(ending="sideways"), "fork_scenarios: ending='sideways' is not"),
        (lambda: fork_scenarios(max_turns=0), "fork_scenarios: max_turns=0 must be at least 1"),
        (lambda: fork_scenarios(max_tools=0), "fork_scenarios: max_tools=0 must be at least 1"),
        (lambda: sibling_scenarios(min_siblings=1), "min_siblings=1 must be at least 2"),
        (
            lambda: sibling_scenarios(min_siblings=4, max_siblings=3),
            "max_siblings=3 is below min_siblings=4",
        ),
        (lambda: continuable_scenarios(cold_resume="yes"), "cold_resume='yes' must be True"),
        (
            lambda: continuable_scenarios(max_follow_ups=-1),
            "max_follow_ups=-1 is below min_follow_ups=0",
        ),
        (lambda: spawn_scenarios(max_turns=0), "spawn_scenarios: max_turns=0"),
        (lambda: scenarios(actions=()), "actions=() must be a non-empty subset"),
        (lambda: scenarios(actions=("fork", "clone")), "must be a non-empty subset of"),
        (lambda: scenarios(actions="fork"), "must be a non-empty subset of"),
        (lambda: call_response_pairs(tool_names=()), "tool_names=() needs non-empty names"),
        (lambda: call_response_pairs(min_calls=0), "min_calls=0 must be at least 1"),
        (lambda: call_response_pairs(max_calls=0), "max_calls=0 is below min_calls=1"),
        (lambda: fork_scenarios(long="yes"), "fork_scenarios: long='yes' must be True, False"),
        (lambda: sibling_scenarios(unicode_heavy=0), "sibling_scenarios: unicode_heavy=0 must"),
        (lambda: spawn_scenarios(large_schemas="x"), "spawn_scenarios: large_schemas='x' must"),
        (lambda: continuable_scenarios(long=1), "continuable_scenarios: long=1 must be True"),
        (lambda: continuable_scenarios(min_follow_ups=-1), "min_follow_ups=-1 must be at least 0"),
        (
            lambda: continuable_scenarios(min_follow_ups=3),
            "max_follow_ups=2 is below min_follow_ups=3",
        ),
        (lambda: scenarios(long="often"), "scenarios: long='often' must be True, False"),
    ],
)
def test_bad_options_fail_early_and_clearly(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


# --- long histories, follow-ups, unicode and large schemas in scenarios --------------------------

LONG = settings(max_examples=3, suppress_health_check=[HealthCheck.too_slow])
"""Long scenarios are evaluated in every dialect: a few, derandomized under ci."""
FIRST = settings(
    max_examples=300,
    database=None,
    phases=[Phase.generate],  # the first example found: shrinking long draws costs minutes
    suppress_health_check=[HealthCheck.too_slow],
)


def passes_everywhere(scenario: Scenario) -> None:
    """Valid, round-trips through the JSON format, and every rule holds for the reference."""
    assert scenario_from_json(orjson.loads(orjson.dumps(scenario_to_json(scenario)))) == scenario
    for dialect in all_dialects():
        outcome = ReferenceSubject().assemble(scenario, dialect)
        report = evaluate(scenario, dialect, outcome, subject="reference")
        assert not report.failed, [
            (f.rule, f.message) for f in report.findings if f.status == "fail"
        ]


@pytest.mark.parametrize("ending", ["model", "model_calls", "user"])
@LONG
@given(data=st.data())
def test_long_forks_and_siblings_in_every_ending(ending: str, data: st.DataObject) -> None:
    strategy = data.draw(st.sampled_from([fork_scenarios, sibling_scenarios]), label="action")
    scenario = data.draw(strategy(ending=ending, long=True))  # type: ignore[arg-type]
    assert len(scenario.history) >= 199
    assert history_ending(scenario.history) == ending
    passes_everywhere(scenario)


@pytest.mark.parametrize(
    "strategy",
    [
        pytest.param(continuable_scenarios(long=True, min_follow_ups=1), id="continuable"),
        pytest.param(spawn_scenarios(long=True), id="spawn"),
    ],
)
@LONG
@given(data=st.data())
def test_long_continuable_forks_and_spawns(strategy, data: st.DataObject) -> None:  # type: ignore[no-untyped-def]
    scenario = data.draw(strategy)
    assert len(scenario.history) >= 199
    passes_everywhere(scenario)


def test_the_long_option_reaches_hundreds_of_messages() -> None:
    found = find(scenarios(long=True), lambda s: len(s.history) >= 200, settings=FIRST)
    assert len(found.history) >= 200


def test_the_mix_draws_each_action_with_its_strategys_defaults() -> None:
    def defaults(strategy: Callable[..., object], *names: str) -> tuple[object, ...]:
        found = inspect.signature(strategy).parameters
        return tuple(found[n].default for n in names)

    e = _Extent(None, None, None)
    fork = defaults(fork_scenarios, "ending")
    siblings = defaults(sibling_scenarios, "ending", "min_siblings", "max_siblings")
    options = defaults(continuable_scenarios, "cold_resume", "structured_output")
    follow_ups = defaults(continuable_scenarios, "min_follow_ups", "max_follow_ups")
    sizes = [defaults(f, "max_turns", "max_tools") for f in (fork_scenarios, sibling_scenarios)]
    sizes += [
        defaults(f, "max_turns", "max_tools") for f in (continuable_scenarios, spawn_scenarios)
    ]
    assert _variants(ACTIONS, e) == (
        (_draw_forks, ("fork", *fork, 1, 1, *sizes[0], e)),
        (_draw_forks, ("siblings", *siblings, *sizes[1], e)),
        (_draw_continuables, (*options, *follow_ups, *sizes[2], e)),
        (_draw_continuables, (*options, 1, 3, *sizes[2], e)),
        (_draw_spawns, (*sizes[3], e)),
    )


def test_the_default_mix_reaches_long_continuable_forks_with_follow_ups() -> None:
    found = find(
        scenarios(),
        lambda s: s.continuation is not None and len(s.continuation.follow_ups) >= 2,
        settings=FIRST,
    )
    passes_everywhere(found)
    long = find(scenarios(), lambda s: len(s.history) >= 200, settings=FIRST)
    passes_everywhere(long)


@FEW
@given(scenarios(long=False, unicode_heavy=True, large_schemas=True))
def test_unicode_heavy_scenarios_with_large_schemas_pass_for_the_reference(
    scenario: Scenario,
) -> None:
    passes_everywhere(scenario)


# --- what the default check's draws cover ---------------------------------------------------------


def _features(scenario: Scenario) -> set[str]:
    """What a scenario holds that the default mix must reach now and then."""
    found = {f"action:{scenario.action}"}
    history = scenario.history
    if scenario.action in ("fork", "siblings"):
        found.add(f"ending:{history_ending(history)}")
    if len(history) >= 200:
        found.add("long")  # far beyond Anthropic's lookback of 20 blocks
    parts = [p for m in history for p in m.parts]
    found |= {f"part:{type(p).__name__}" for p in parts}
    if any(len(m.function_calls) >= 2 for m in history):
        found.add("parallel-calls")
    texts = "".join(m.text for m in history) + "".join(scenario.preset.system)
    if any(0x4E00 <= ord(c) <= 0x9FFF or 0x1F300 <= ord(c) <= 0x1FAFF for c in texts):
        found.add("unicode-heavy")
    if any(len(orjson.dumps(t.parameters)) > 2000 for t in scenario.preset.tools):
        found.add("large-schema")
    if len(scenario.directives) >= 3:
        found.add("three-siblings")
    spec = scenario.continuation
    if spec is not None:
        found |= {"tool-filter"} if spec.tool_filter is not None else set()
        found |= {"persona"} if spec.persona is not None else set()
        found |= {"output-tool"} if spec.output_tool is not None else set()
        if any(step.reply.function_calls for step in spec.follow_ups):
            found.add("follow-up-calls")
        if len(spec.follow_ups) >= 2:
            found.add("follow-ups")
    chosen = scenario.preset.settings
    found |= {
        f"setting:{f}"
        for f in ("temperature", "thinking", "tool_choice", "stop")
        if getattr(chosen, f) is not None
    }
    return found


EVERY_FEATURE = (
    {f"action:{a}" for a in ACTIONS}
    | {f"ending:{e}" for e in ("model", "model_calls", "user")}
    | {f"part:{k}" for k in ("Text", "Image", "Thinking", "FunctionCall", "FunctionResponse")}
    | {"long", "parallel-calls", "unicode-heavy", "large-schema", "three-siblings"}
    | {"tool-filter", "persona", "output-tool", "follow-up-calls", "follow-ups"}
    | {f"setting:{f}" for f in ("temperature", "thinking", "tool_choice", "stop")}
)


def test_the_default_checks_draws_cover_every_action_ending_part_and_extent() -> None:
    """Over the scenarios ``prefix-harness check`` draws (several seeds), every feature the
    strategies promise turns up: a property of many draws, never of one."""
    seen: set[str] = set()
    for rng_seed in (None, 1, 2, 3, 4, 5, 6, 7):
        for scenario in generate(ACTIONS, 25, rng_seed=rng_seed):
            assert not scenario.problems()
            seen |= _features(scenario)
    assert EVERY_FEATURE - seen == set()


# --- shrinking ---------------------------------------------------------------------------------


def test_a_failure_on_a_long_history_shrinks_to_the_least_long_fork() -> None:
    shrunk = find(scenarios(), lambda s: len(s.history) >= 200, settings=SHRINK)
    assert shrunk.action == "fork"
    assert len(shrunk.history) in (200, 201)  # 100 turns: the least a long history has
    assert len(shrunk.preset.tools) == 2
    assert shrunk.directives == ("0",)


def test_a_failure_on_a_text_in_the_history_shrinks_to_that_text() -> None:
    def has(s: Scenario) -> bool:
        return any("\n" in m.text for m in s.history)

    shrunk = find(scenarios(), has, settings=SHRINK)
    assert shrunk.action == "fork"
    assert len(shrunk.history) <= 2
    assert {m.text for m in shrunk.history} <= {"", "\n"}
    assert len(shrunk.preset.tools) == 2
