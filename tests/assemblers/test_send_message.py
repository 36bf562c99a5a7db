from harness.assemblers import (
    SEND_MESSAGE,
    SEND_MESSAGE_TOOL,
    has_send_message,
    with_send_message,
)
from harness.model import Preset, Request, Tool, thaw

from .conftest import Wire


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


def test_rendered_schema_keeps_agent_id_before_message(wire: Wire) -> None:
    body = wire.body(Request(with_send_message(Preset())))
    agent_id = body.index(b'"agent_id"')
    assert agent_id < body.index(b'"message"', agent_id) < body.index(b'"required"')
