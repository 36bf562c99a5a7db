"""The public types are registered with Hypothesis: ``st.from_type`` draws them with the
harness's strategies (valid scenarios, unique tool names), also inside ``st.builds``."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.model import Preset, Request, Settings, Tool
from harness.scenarios import Scenario, history_problems, scenario_from_json, scenario_to_json
from harness.strategies import register_types

QUICK = settings(max_examples=10, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(st.from_type(Scenario))
def test_from_type_draws_valid_scenarios(scenario: Scenario) -> None:
    assert isinstance(scenario, Scenario)
    assert scenario_from_json(scenario_to_json(scenario)) == scenario


@QUICK
@given(st.from_type(Request), st.from_type(Preset), st.from_type(Tool), st.from_type(Settings))
def test_from_type_draws_the_model_types(
    request: Request, preset: Preset, tool: Tool, chosen: Settings
) -> None:
    assert not history_problems(request.history)
    names = [t.name for t in preset.tools]
    assert len(set(names)) == len(names)
    assert isinstance(tool, Tool)
    assert tool.name
    assert isinstance(chosen, Settings)


@dataclass(frozen=True)
class Case:
    scenario: Scenario
    label: str


@QUICK
@given(st.builds(Case))
def test_builds_fills_a_scenario_argument_from_its_annotation(case: Case) -> None:
    assert isinstance(case.scenario, Scenario)


def test_registering_again_is_harmless() -> None:
    register_types()
    register_types()
    assert isinstance(st.from_type(Scenario), st.SearchStrategy)
