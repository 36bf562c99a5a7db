"""Subjects for ``prefix-harness check --subject python:tests.cli.check_subjects:<factory>``."""

from __future__ import annotations

from typing import Any

from harness.scenarios import Scenario
from tests.rules.bad_subjects import CASES, Mutant


def tool_order() -> Mutant:
    """Tool order not fixed: tools-identical fails."""
    return CASES["tool-order"].subject


def model_switched() -> Mutant:
    """The child runs on another model: settings-identical fails."""
    return CASES["model-switched"].subject


def not_a_subject() -> object:
    return 42


def tool_choice() -> Mutant:
    """The child changes tool_choice: a warning (no cache effect on OpenAI), no failure."""
    return CASES["tool-choice"].subject


def envelope_respelled() -> Mutant:
    """Children send every history object with its keys in reverse order: the same prompt to
    the provider (it reads them by field name), another byte stream."""
    return Mutant("envelope-respelled", body=_respell)


_HISTORY = {"gemini": "contents", "openai-responses": "input"}


def _respell(body: dict[str, Any], scenario: Scenario, dialect: str, i: int) -> dict[str, Any]:
    key = _HISTORY.get(dialect, "messages")
    items = body.get(key)
    if not isinstance(items, list):
        return body
    respelled = [dict(reversed(list(m.items()))) if isinstance(m, dict) else m for m in items]
    return {**body, key: respelled}
