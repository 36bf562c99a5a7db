"""The public model and scenario types registered with Hypothesis, so that ``st.from_type``
(and ``st.builds`` of a class taking one) draws them with these strategies."""

from __future__ import annotations

from hypothesis import strategies as st

from ..model import Preset, Request, Settings, Tool
from ..scenarios import Scenario
from ._model import presets, requests, settings, tools
from ._scenarios import scenarios

__all__ = ["register_types"]


def _one_tool(declared: tuple[Tool, ...]) -> Tool:
    return declared[0]


def register_types() -> None:
    """Register ``Scenario``, ``Request``, ``Preset``, ``Tool`` and ``Settings``; done when
    ``harness.generation`` (or ``harness.strategies``) is imported, and harmless to repeat."""
    st.register_type_strategy(Scenario, scenarios())
    st.register_type_strategy(Request, requests())
    st.register_type_strategy(Preset, presets())
    st.register_type_strategy(Tool, tools(min_size=1, max_size=1).map(_one_tool))
    st.register_type_strategy(Settings, settings())
