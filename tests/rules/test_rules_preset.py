from dataclasses import replace

import pytest

from harness.model import Request

from .bad_subjects import CASES
from .support import DIALECTS, REFERENCE, edited, finding


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("rule", ["system-identical", "tools-identical", "settings-identical"])
def test_the_reference_repeats_the_parents_head(dialect: str, rule: str) -> None:
    for scenario in ("fork-model-calls", "siblings", "continuable"):
        assert finding(REFERENCE, scenario, dialect, rule).status == "pass"


@pytest.mark.parametrize("rule", ["system-identical", "tools-identical", "settings-identical"])
def test_no_prefix_expected_means_not_applicable(rule: str) -> None:
    degraded = finding(REFERENCE, "degraded", "gemini", rule)
    assert degraded.status == "not-applicable"
    assert "degraded fork" in degraded.message
    assert finding(REFERENCE, "spawn", "gemini", rule).status == "not-applicable"


def test_a_changed_system_block_fails_with_its_cost() -> None:
    found = finding(CASES["timestamp"].subject, "fork-model-calls", "anthropic", "system-identical")
    assert found.status == "fail"
    assert found.message.startswith("children[0]'s system instruction differs at system[0].text")
    assert found.cost is not None
    assert found.cost.lost_bytes > 0
    assert found.evidence is not None
    assert found.evidence.window is not None
    assert "Now: 2025" in found.evidence.window.text[found.evidence.window.caret :]


def test_tool_changes_are_named() -> None:
    order = finding(CASES["tool-order"].subject, "fork-model-calls", "openai", "tools-identical")
    assert "tool order differs: parent ['search', 'read_file', 'agent']" in order.message
    churn = finding(CASES["tool-churn"].subject, "fork-model-calls", "openai", "tools-identical")
    assert churn.message.startswith("children[0]: drops agent;")

    def schema_keys_sorted(request: Request, *_: object) -> Request:
        tools = request.preset.tools
        changed = replace(tools[0], description="Search the repo.")
        return replace(request, preset=replace(request.preset, tools=(changed, *tools[1:])))

    edited_tool = edited("described", child=schema_keys_sorted)
    found = finding(edited_tool, "fork-model-calls", "openai", "tools-identical")
    assert found.message.startswith("children[0]: tool search differs;")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_accepted_divergences_are_warnings_with_cost(dialect: str) -> None:
    persona = finding(REFERENCE, "continuable-persona", dialect, "system-identical")
    assert persona.status == "warning"
    assert "a restored persona" in persona.message
    assert persona.cost is not None
    assert persona.cost.lost_bytes > 0
    filtered = finding(REFERENCE, "continuable-filtered", dialect, "tools-identical")
    assert filtered.status == "warning"
    assert filtered.cost is not None


def test_settings_changes_are_listed_without_a_byte_cost() -> None:
    found = finding(
        CASES["model-switched"].subject, "fork-model-calls", "openai", "settings-identical"
    )
    assert found.status == "fail"
    assert found.message == "children[0] changes model"
    assert found.cost is None
    assert found.evidence is not None
    assert found.evidence.diff == ('changed  model: "model-large" -> "model-small"',)
    assert found.evidence.reason == '"model-large" in the parent, "model-small" in the child'


def test_a_setting_kept_in_a_prefix_segment_is_compared_too() -> None:
    found = finding(
        CASES["tool-choice"].subject, "fork-model-calls", "gemini", "settings-identical"
    )
    assert found.status == "fail"
    assert found.evidence is not None
    assert found.evidence.segment == "toolConfig"
    assert found.evidence.offset is not None
