from dataclasses import replace

import pytest

from harness.dialects import Markers, Segment, get_dialect
from harness.dialects.openai import OpenAIChat
from harness.rules._layout import families, marker_limit

from .support import DIALECTS, REFERENCE, context


def test_openai_system_is_the_leading_run_of_system_messages() -> None:
    segments = (
        Segment("tools[0]", {}),
        Segment("response_format", {}),
        Segment("messages[0]", {"role": "developer"}),
        Segment("messages[1]", {"role": "system"}),
        Segment("messages[2]", {"role": "user"}),
        Segment("messages[3]", {"role": "system"}),
    )
    assert families("openai", segments) == (
        "tools",
        "settings",
        "system",
        "system",
        "history",
        "history",
    )


def test_gemini_and_anthropic_families_by_segment_name() -> None:
    gemini = [Segment(n, {}) for n in ("systemInstruction", "tools[0].functionDeclarations[1]")]
    gemini += [Segment("toolConfig", {}), Segment("contents[0]", {})]
    assert families("gemini", gemini) == ("system", "tools", "settings", "history")
    anthropic = [Segment(n, {}) for n in ("tools[0]", "system", "system[1]", "messages[0]")]
    assert families("anthropic", anthropic) == ("tools", "system", "system", "history")


def test_a_dialect_without_a_family_table_is_read_by_segment_names() -> None:
    class Bare(OpenAIChat):
        facts = replace(OpenAIChat.facts, segments={}, system_roles=())

    names = ("instructions", "tools[0]", "tool_config", "input[0]", "text")
    segments = [Segment(n, {}) for n in names]
    assert Bare().families(segments) == ("settings", "tools", "settings", "history", "settings")
    assert Bare().families([Segment("system_prompt", "")]) == ("system",)


def test_the_families_and_limits_are_the_dialects_own() -> None:
    assert get_dialect("anthropic").facts.markers == Markers(4, 20, "5m")
    assert get_dialect("gemini").facts.markers is None
    assert get_dialect("openai").facts.system_roles == ("system", "developer")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_reference_bodies_put_head_before_history(dialect: str) -> None:
    ctx = context(REFERENCE, "fork-model-calls", dialect)
    child = ctx.children[0]
    head = child.families[: child.history_start]
    assert set(head) <= {"system", "tools", "settings"}
    assert set(child.families[child.history_start :]) == {"history"}
    # two system blocks: Gemini's two parts of one instruction, OpenAI's two system messages
    # (a header and a content each), the Responses instructions and a leading system item
    units = {"anthropic": 2, "gemini": 2, "openai": 4, "openai-responses": 3}
    assert head.count("system") == units[dialect]
    assert head.count("tools") == 3


def test_marker_limits() -> None:
    assert marker_limit("anthropic") == 4
    assert marker_limit("openai") is None
