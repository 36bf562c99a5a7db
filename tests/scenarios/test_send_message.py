"""The global send_message tool and the parent's preset (harness/scenarios/_send_message.py)."""

from dataclasses import replace
from pathlib import Path

import pytest

from harness.dialects import get_dialect
from harness.model import Preset, Request, Tool, thaw
from harness.scenarios import (
    SEND_MESSAGE,
    SEND_MESSAGE_TOOL,
    Scenario,
    has_send_message,
    load_fixtures,
    parent_preset,
    with_send_message,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_declaration_and_its_key_order_are_fixed() -> None:
    assert SEND_MESSAGE_TOOL.name == SEND_MESSAGE == "send_message"
    params = thaw(SEND_MESSAGE_TOOL.parameters)
    assert list(params) == ["type", "properties", "required"]
    assert list(params["properties"]) == ["agent_id", "message"]
    assert params["required"] == ["agent_id", "message"]
    assert all(p["type"] == "string" for p in params["properties"].values())


def test_registering_appends_it_once() -> None:
    preset = Preset(system=("s",), tools=(Tool("search"),))
    registered = with_send_message(preset)
    assert registered.tools == (Tool("search"), SEND_MESSAGE_TOOL)
    assert registered.system == preset.system
    assert with_send_message(registered) is registered


def test_an_existing_declaration_is_kept_as_declared() -> None:
    own = Tool("send_message", "The subject's own wording.")
    preset = Preset(tools=(own, Tool("search")))
    assert with_send_message(preset).tools == (own, Tool("search"))
    assert has_send_message(preset.tools)
    assert not has_send_message((Tool("search"),))


@pytest.mark.parametrize("dialect", ["gemini", "openai", "anthropic"])
def test_rendered_schema_keeps_agent_id_before_message(dialect: str) -> None:
    body = get_dialect(dialect).render(Request(with_send_message(Preset())))
    agent_id = body.index(b'"agent_id"')
    assert agent_id < body.index(b'"message"', agent_id) < body.index(b'"required"')


def _first(family: str) -> Scenario:
    return load_fixtures(FIXTURES / f"{family}.json")[0]


def test_a_continuable_forks_parent_sends_with_send_message_registered() -> None:
    scenario = _first("continuable")
    bare = replace(scenario, preset=Preset(scenario.preset.system, (Tool("search"),)))
    assert parent_preset(bare).tools == (Tool("search"), SEND_MESSAGE_TOOL)
    assert has_send_message(parent_preset(scenario).tools)


def test_any_other_parent_sends_the_scenarios_preset_as_it_is() -> None:
    scenario = _first("oneshot")
    assert scenario.action != "continuable"
    assert parent_preset(scenario) is scenario.preset
    assert not has_send_message(parent_preset(scenario).tools)
