"""The global ``send_message`` tool (docs/protocol.md#lifecycles, continuable).

One declaration, registered for every agent, lets a continuable child report to its parent
without a child-only tool: parent and child then declare byte-identical, identically ordered
tools. Its schema's key order is fixed here once. Which preset a scenario's parent sends
with follows from it (``parent_preset``): a fact of the scenario, not of an implementation.
"""

from __future__ import annotations

from ..model import Preset, Tool, freeze
from ._scenario import Scenario

__all__ = [
    "SEND_MESSAGE",
    "SEND_MESSAGE_TOOL",
    "has_send_message",
    "parent_preset",
    "with_send_message",
]

SEND_MESSAGE = "send_message"

SEND_MESSAGE_TOOL = Tool(
    name=SEND_MESSAGE,
    description=(
        "Send a message to another agent of this session by its id: a child reports to its "
        "parent, a parent gives a running child more work."
    ),
    parameters=freeze(
        {
            "type": "object",
            "properties": {
                "agent_id": {"type": "string", "description": "The id of the receiving agent."},
                "message": {"type": "string", "description": "The text to deliver."},
            },
            "required": ["agent_id", "message"],
        }
    ),
)


def has_send_message(tools: tuple[Tool, ...]) -> bool:
    """Whether ``send_message`` is among ``tools`` (visible to the agent)."""
    return any(t.name == SEND_MESSAGE for t in tools)


def with_send_message(preset: Preset) -> Preset:
    """``preset`` with ``send_message`` registered: appended last unless already declared.

    An existing declaration is kept as it is, since the child must repeat the parent's.
    """
    if has_send_message(preset.tools):
        return preset
    return Preset(
        system=preset.system, tools=(*preset.tools, SEND_MESSAGE_TOOL), settings=preset.settings
    )


def parent_preset(scenario: Scenario) -> Preset:
    """The preset the parent sends with: ``send_message`` is global for continuable forks."""
    if scenario.action == "continuable":
        return with_send_message(scenario.preset)
    return scenario.preset
