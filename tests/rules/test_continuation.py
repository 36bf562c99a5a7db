"""A child that continues its parent's stored response (OpenAI Responses
``previous_response_id``) is judged as the provider reads it: the parent's input and the
model's answer ahead of its own input."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest

from harness.rules import ScenarioReport, evaluate
from harness.subjects import Outcome

from .scenarios import BY_ID
from .support import REFERENCE, outcome

DIALECT = "openai-responses"


def continued(scenario: str, **changes: Any) -> tuple[Outcome, dict[str, Any]]:
    """The reference's outcome with each child sent as a continuation of the parent's
    response: only the items after the parent's input and the answer to it."""
    full = outcome(REFERENCE, scenario, DIALECT)
    assert full.parent is not None
    parent = orjson.loads(full.parent)
    children = []
    for raw in full.children:
        child = orjson.loads(raw)
        own = child["input"][len(parent["input"]) :]
        while own and _from_the_model(own[0]):
            own = own[1:]
        children.append(
            orjson.dumps({**child, "input": own, "previous_response_id": "resp_1", **changes})
        )
    return replace(full, children=tuple(children)), parent


def _from_the_model(item: dict[str, Any]) -> bool:
    """An item of the model's answer to the parent's request (the provider stores it)."""
    return item.get("type") in ("function_call", "reasoning") or item.get("role") == "assistant"


def run(scenario: str, result: Outcome) -> ScenarioReport:
    return evaluate(BY_ID[scenario], DIALECT, result, subject="continuation")


@pytest.mark.parametrize("scenario", ["fork-model-calls", "siblings"])
def test_a_continuation_of_the_parents_response_keeps_the_prefix(scenario: str) -> None:
    result, _ = continued(scenario)
    assert all(b"previous_response_id" in c for c in result.children)
    report = run(scenario, result)
    for rule in ("well-formed", "byte-prefix", "history-inherited", "tools-identical"):
        assert report.finding(rule).status == "pass", report.finding(rule).message


def test_a_continuation_with_its_own_instructions_loses_the_prefix() -> None:
    result, _ = continued("fork-model-calls", instructions="You are a fresh worker.")
    report = run("fork-model-calls", result)
    assert report.finding("system-identical").status == "fail"
    assert report.finding("byte-prefix").status == "fail"


def test_a_continuation_without_the_tools_fails_tools_identical() -> None:
    result, _ = continued("fork-model-calls", tools=[])
    assert run("fork-model-calls", result).finding("tools-identical").status == "fail"


def test_a_parent_sent_with_store_false_cannot_be_continued() -> None:
    result, parent = continued("fork-model-calls")
    unstored = replace(result, parent=orjson.dumps({**parent, "store": False}))
    found = run("fork-model-calls", unstored).finding("well-formed")
    assert found.status == "fail"
    assert "store: false" in found.message


def test_only_a_child_may_continue() -> None:
    result, parent = continued("fork-model-calls")
    odd = replace(result, parent=orjson.dumps({**parent, "previous_response_id": "resp_0"}))
    found = run("fork-model-calls", odd).finding("well-formed")
    assert found.status == "fail"
    assert "only a child's first request may continue" in found.message
