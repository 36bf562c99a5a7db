"""Subjects for ``prefix-harness check --subject python:tests.cli.check_subjects:<factory>``."""

from __future__ import annotations

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
