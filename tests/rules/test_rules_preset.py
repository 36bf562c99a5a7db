from dataclasses import replace
from typing import Any

import pytest

from harness.model import Request

from .bad_subjects import CASES
from .support import DIALECTS, REFERENCE, context, edited, finding


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


@pytest.mark.parametrize("dialect", DIALECTS)
def test_tool_changes_are_named_by_tool_not_by_position(dialect: str) -> None:
    order = finding(CASES["tool-order"].subject, "fork-model-calls", dialect, "tools-identical")
    # reversed: the middle tool stays where it was, the outer two change places
    assert order.message.startswith(
        "children[0]: tool `agent` moved from 2 to 0, tool `search` moved from 0 to 2; "
    )
    churn = finding(CASES["tool-churn"].subject, "fork-model-calls", dialect, "tools-identical")
    assert churn.message.startswith("children[0]: tool `agent` removed; first difference at")

    def first_dropped_one_added(request: Request, *_: object) -> Request:
        tools = request.preset.tools
        grep = replace(tools[0], name="grep", description="Search file contents.")
        return replace(request, preset=replace(request.preset, tools=(*tools[1:], grep)))

    swapped = edited("swapped", child=first_dropped_one_added)
    found = finding(swapped, "fork-model-calls", dialect, "tools-identical")
    assert found.status == "fail"
    # by position every tool would differ; by name one is gone and one is new
    assert found.message.startswith(
        "children[0]: tool `search` removed, tool `grep` added at 2; first difference at tools[0]"
    )


def test_a_changed_tool_says_what_changed_in_it() -> None:
    def described(request: Request, *_: object) -> Request:
        tools = request.preset.tools
        changed = replace(tools[0], description="Search the repo.")
        return replace(request, preset=replace(request.preset, tools=(changed, *tools[1:])))

    found = finding(
        edited("described", child=described), "fork-model-calls", "openai", "tools-identical"
    )
    assert found.message.startswith(
        "children[0]: tool `search` changed: function.description: text differs from byte "
    )
    assert found.evidence is not None
    assert found.evidence.path == "tools[0].function.description"  # the evidence is as it was
    assert found.evidence.diff[0].startswith("tool `search` changed: ")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_tool_whose_outer_keys_are_reordered_is_named(dialect: str) -> None:
    """Neutral tools compare equal here: only the wire shows the change, and names it."""

    def outer_keys_reversed(
        body: dict[str, Any], scenario: object, d: str, i: int
    ) -> dict[str, Any]:
        tools = body["tools"]
        if d == "gemini":
            decls = tools[0]["functionDeclarations"]
            reordered = [decls[0], dict(reversed(decls[1].items())), *decls[2:]]
            tools = [{**tools[0], "functionDeclarations": reordered}, *tools[1:]]
        else:
            tools = [tools[0], dict(reversed(tools[1].items())), *tools[2:]]
        return {**body, "tools": tools}

    found = finding(
        edited("outer", body=outer_keys_reversed), "fork-model-calls", dialect, "tools-identical"
    )
    assert found.status == "fail"
    assert found.message.startswith("children[0]: only the key order of tool `read_file` changed;")
    assert found.evidence is not None
    assert found.evidence.diff == ("only the key order of tool `read_file` changed",)


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


def test_a_keyed_setting_changed_costs_what_it_invalidates() -> None:
    found = finding(
        CASES["model-switched"].subject, "fork-model-calls", "openai", "settings-identical"
    )
    assert found.status == "fail"
    assert found.message == (
        "children[0] changes model (OpenAI's cache is keyed on it: the whole cached prefix)"
    )
    assert found.cost is not None
    whole = context(CASES["model-switched"].subject, "fork-model-calls", "openai")
    assert whole.parent is not None
    assert found.cost.lost_bytes == whole.parent.stream.length
    assert found.evidence is not None
    assert found.evidence.diff == ('changed  model: "model-large" -> "model-small"',)
    assert found.evidence.reason == '"model-large" in the parent, "model-small" in the child'


def test_a_setting_that_invalidates_the_messages_costs_the_messages() -> None:
    subject = CASES["tool-choice"].subject
    found = finding(subject, "fork-model-calls", "anthropic", "settings-identical")
    assert found.status == "fail"
    assert "tool_choice (Anthropic's cache is keyed on it: the cached messages)" in found.message
    ctx = context(subject, "fork-model-calls", "anthropic")
    assert ctx.parent is not None
    assert found.cost is not None
    head = ctx.parent.frames[ctx.parent.history_start].start
    assert found.cost.lost_bytes == ctx.parent.stream.length - head


@pytest.mark.parametrize(
    ("case", "dialect"),
    [("tool-choice-no-cache-effect", "openai"), ("thinking-changed-no-cache-effect", "gemini")],
)
def test_a_setting_with_no_cache_effect_is_a_warning(case: str, dialect: str) -> None:
    subject = CASES[case].subject
    found = finding(subject, "fork-model-calls", dialect, "settings-identical")
    assert found.status == "warning"
    provider = {"openai": "OpenAI", "gemini": "Gemini"}[dialect]
    assert found.message.endswith(
        f": no cache effect on {provider}, but the child does not run with the parent's "
        "configuration"
    )
    assert found.cost is None
    assert found.evidence is not None
    assert all(line.endswith("(no cache effect)") for line in found.evidence.diff)


def test_a_child_deriving_its_own_prompt_cache_key_fails() -> None:
    found = finding(
        CASES["cache-key-derived"].subject, "fork-cache-key", "openai", "settings-identical"
    )
    assert found.status == "fail"
    assert found.message.startswith("children[0] changes prompt_cache_key (OpenAI's cache is")
    assert found.cost is not None
    assert found.cost.share > 0.5
    assert finding(REFERENCE, "fork-cache-key", "openai", "settings-identical").status == "pass"


def test_a_setting_kept_in_a_prefix_segment_is_compared_too() -> None:
    found = finding(
        CASES["tool-choice"].subject, "fork-model-calls", "gemini", "settings-identical"
    )
    assert found.status == "fail"
    assert found.evidence is not None
    assert found.evidence.segment == "toolConfig"
    assert found.evidence.offset is not None
