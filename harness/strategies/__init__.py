"""Hypothesis strategies for the neutral model, public for users' own tests."""

from ._model import Ending, histories, json_objects, json_values, presets, requests, settings, tools

__all__ = [
    "Ending",
    "histories",
    "json_objects",
    "json_values",
    "presets",
    "requests",
    "settings",
    "tools",
]
