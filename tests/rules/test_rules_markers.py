from dataclasses import replace
from typing import Any

import orjson
import pytest

from harness.dialects import Facts, Markers
from harness.dialects.anthropic import AnthropicDialect
from harness.dialects.openai_responses import OpenAIResponses
from harness.model import Request
from harness.rules._rules_markers import cache_markers
from harness.scenarios import Scenario
from harness.subjects import Outcome

from .bad_subjects import CASES, FIELD_CASES, GOOD_MARKERS, Mutant
from .edits import LONG_TTL, REMINDER
from .support import REFERENCE, context, edited, finding


def test_markers_at_the_end_of_the_inherited_prefix_pass() -> None:
    found = finding(GOOD_MARKERS, "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "pass"
    assert found.message == (
        "children[0] marks messages[3], at or after the end of the inherited prefix "
        "(1 of 4 markers)"
    )
    assert finding(GOOD_MARKERS, "fork-model-calls", "anthropic", "byte-prefix").status == "pass"


def test_not_applicable_without_markers_or_in_dialects_without_them() -> None:
    none = finding(REFERENCE, "fork-model-calls", "anthropic", "cache-markers")
    assert (none.status, none.message) == (
        "not-applicable",
        "children[0] sets no cache markers at all",
    )
    other = finding(GOOD_MARKERS, "fork-model-calls", "openai", "cache-markers")
    assert (
        other.message == "applies to the anthropic and openai-responses dialects only, not openai"
    )
    degraded = finding(GOOD_MARKERS, "degraded", "anthropic", "cache-markers")
    assert degraded.status == "not-applicable"


def test_a_marker_only_on_the_task_fails() -> None:
    found = finding(
        CASES["volatile-marker"].subject, "fork-model-calls", "anthropic", "cache-markers"
    )
    assert found.status == "fail"
    assert found.message == (
        "children[0]: the only marker at or after messages[3] is on the trailing task block"
    )


def test_markers_all_before_the_inherited_end_fail() -> None:
    def early(request: Request, *_: object) -> Request:
        return replace(request, cache_breakpoints=("tools[2]", "system[1]"))

    found = finding(edited("early", child=early), "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "fail"
    assert "every marker comes before the end of the inherited prefix (messages[3])" in (
        found.message
    )


def test_more_markers_than_the_dialect_allows_fail() -> None:
    found = finding(
        CASES["too-many-markers"].subject, "fork-model-calls", "anthropic", "cache-markers"
    )
    assert found.message == "children[0] sets 5 cache markers where the dialect allows 4"
    assert found.evidence is not None
    assert found.evidence.segment == "system[1]"


# --- read as the provider's cache reads them: lookback window and ttl -------------------------


def _mark_last(raw: bytes, marker: dict[str, Any], back: int = 0) -> bytes:
    """The body with ``marker`` on the last block of message ``-1 - back``."""
    body = orjson.loads(raw)
    message = body["messages"][-1 - back]
    content = message["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    content[-1] = {**content[-1], "cache_control": marker}
    message["content"] = content
    return orjson.dumps(body)


def _marked(parent: dict[str, Any] | None, child: dict[str, Any]) -> Mutant:
    """The reference with the parent's last message marked (when ``parent``) and each
    child's trailing task block marked."""

    def edit(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        assert outcome.parent is not None
        marked = outcome.parent if parent is None else _mark_last(outcome.parent, parent)
        children = tuple(_mark_last(c, child) for c in outcome.children)
        return replace(outcome, parent=marked, children=children)

    return edited(f"marked-{parent}-{child}", outcome=edit)


EPHEMERAL = {"type": "ephemeral"}


def test_a_trailing_marker_reads_the_parents_entry_within_the_lookback_window() -> None:
    found = finding(_marked(EPHEMERAL, EPHEMERAL), "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "pass", found.message
    assert found.message == (
        "children[0]'s marker on messages[6] reads the parent's entry on messages[2] "
        "within the 20-block lookback window"
    )


def test_a_trailing_marker_without_a_parent_entry_still_fails() -> None:
    found = finding(_marked(None, EPHEMERAL), "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "fail"


def test_a_window_that_misses_every_parent_entry_fails() -> None:
    class Short(AnthropicDialect):
        facts = _lookback(AnthropicDialect.facts, 1)

    ctx = context(_marked(EPHEMERAL, EPHEMERAL), "fork-model-calls", "anthropic")
    found = cache_markers(replace(ctx, dialect=Short()))
    assert found.status == "fail"
    assert "outside the 1-block lookback window of every child marker" in found.message
    assert found.evidence is not None
    assert found.evidence.segment == "messages[6]"


def _lookback(facts: Facts, lookback: int | None) -> Facts:
    """``facts`` with another marker lookback."""
    assert facts.markers is not None
    return replace(facts, markers=replace(facts.markers, lookback=lookback))


class Unlimited(AnthropicDialect):
    """Markers read as OpenAI's explicit breakpoints are: no lookback limit."""

    facts = _lookback(AnthropicDialect.facts, None)


def test_without_a_lookback_limit_a_marker_reads_any_entry_before_it() -> None:
    ctx = context(_marked(EPHEMERAL, EPHEMERAL), "fork-model-calls", "anthropic")
    parent_block = ctx.parent.parsed.markers[0].block if ctx.parent else 0
    child_block = ctx.children[0].parsed.markers[0].block
    assert child_block - parent_block > 1  # too far for a one-block window

    class Short(AnthropicDialect):
        facts = _lookback(AnthropicDialect.facts, 1)

    assert cache_markers(replace(ctx, dialect=Short())).status == "fail"
    found = cache_markers(replace(ctx, dialect=Unlimited()))
    assert found.status == "pass", found.message
    assert found.message == (
        "children[0]'s marker on messages[6] reads the parent's entry on messages[2] "
        "(no lookback limit)"
    )


def test_without_a_lookback_limit_a_marker_before_every_parent_entry_reads_none() -> None:
    def head_only(request: Request, *_: object) -> Request:
        return replace(request, cache_breakpoints=("tools[0]",))

    def parent_last(request: Request, *_: object) -> Request:
        return replace(request, cache_breakpoints=(f"messages[{len(request.history) - 1}]",))

    subject = edited("head-only", child=head_only, parent=parent_last)
    ctx = context(subject, "fork-model-calls", "anthropic")
    found = cache_markers(replace(ctx, dialect=Unlimited()))
    assert found.status == "fail"
    assert found.message == (
        "children[0]: no marker reads the parent's cache: every parent entry (messages[2] at "
        "block 10) comes after every child marker (tools[0] at block 0), and a marker reads "
        "only entries at or before its own block (there is no lookback limit)"
    )
    assert found.evidence is not None
    assert found.evidence.segment == "tools[0]"
    # the same child, read with Anthropic's 20-block window, is refused the same way
    windowed = cache_markers(ctx)
    assert "outside the 20-block lookback window" in windowed.message


def test_a_changed_ttl_writes_a_separate_entry_and_fails() -> None:
    subject = _marked({"type": "ephemeral", "ttl": "1h"}, EPHEMERAL)
    found = finding(subject, "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "fail"
    assert "has ttl 5m where the parent's on messages[2] has 1h" in found.message


def test_an_absent_ttl_is_the_default_ttl() -> None:
    subject = _marked({"type": "ephemeral", "ttl": "5m"}, EPHEMERAL)
    found = finding(subject, "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "pass", found.message


def test_markers_carry_block_positions_and_ttls() -> None:
    body = {
        "tools": [{"name": "t", "input_schema": {"type": "object"}}],
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "a",
                        "cache_control": {"type": "ephemeral", "ttl": "1h"},
                    },
                    {"type": "text", "text": "b"},
                ],
            },
        ],
    }
    marks = AnthropicDialect().parse(body).markers
    assert [(m.segment, m.block, m.ttl) for m in marks] == [
        ("system[0]", 1, "5m"),
        ("messages[1]", 3, "1h"),
    ]


def test_parent_entries_past_the_first_difference_are_not_asked_for() -> None:
    """A child whose head differs (a cold resume filtering every tool) can read none of the
    parent's entries whatever it marks: cache-markers judges the placement only."""
    subject = _marked(EPHEMERAL, EPHEMERAL)

    def drop_tools(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        marked = subject.assemble(scenario, dialect)
        children = []
        for raw in marked.children:
            body = orjson.loads(raw)
            body.pop("tools", None)
            children.append(orjson.dumps(body))
        return replace(marked, children=tuple(children))

    class Short(AnthropicDialect):
        facts = _lookback(AnthropicDialect.facts, 1)

    ctx = context(edited("no-tools", outcome=drop_tools), "fork-model-calls", "anthropic")
    found = cache_markers(replace(ctx, dialect=Short()))
    assert "lookback window" not in found.message


# --- classes seen in the field: ttls, reminders, OpenAI's breakpoints --------------------------


@pytest.mark.parametrize(
    ("dialect", "where", "parent"),
    [("anthropic", "messages[3]", "messages[2]"), ("openai-responses", "input[8]", "input[6]")],
)
def test_a_ttl_dropped_or_changed_in_the_child_fails_in_each_marker_dialect(
    dialect: str, where: str, parent: str
) -> None:
    default = {"anthropic": "5m", "openai-responses": "30m"}[dialect]
    long = LONG_TTL[dialect]
    for key, ours, theirs in (
        ("marker-ttl-dropped", default, long),
        ("marker-ttl-changed", long, default),
    ):
        found = finding(FIELD_CASES[key].subject, "fork-model-calls", dialect, "cache-markers")
        assert found.message == (
            f"children[0]: the marker on {where} has ttl {ours} where the parent's on {parent} "
            f"has {theirs}: a changed ttl writes a separate entry"
        )


@pytest.mark.parametrize(
    ("dialect", "end"), [("anthropic", "messages[3]"), ("openai-responses", "input[8]")]
)
def test_a_marker_on_a_trailing_reminder_is_named_as_such(dialect: str, end: str) -> None:
    subject = FIELD_CASES["reminder-marked"].subject
    found = finding(subject, "fork-model-calls", dialect, "cache-markers")
    assert found.message == (
        f"children[0]: the only marker at or after {end} is on the trailing system-role "
        "message, which no later request repeats"
    )
    ctx = context(subject, "fork-model-calls", dialect)
    assert ctx.children[0].request.history[-1].role == "system"
    assert ctx.children[0].request.history[-1].text == REMINDER


def test_openai_breakpoints_read_a_parent_entry_at_any_distance() -> None:
    """The Responses dialect sets a marker limit and no lookback: a trailing breakpoint reads
    the parent's last entry however many blocks lie between them."""
    subject = edited("trailing-reads", outcome=_plain)
    ctx = context(subject, "fork-model-calls", "openai-responses")
    assert ctx.dialect.facts.markers == Markers(limit=4, lookback=None, default_ttl="30m")
    parent, child = ctx.parent, ctx.children[0]
    assert parent is not None
    assert child.parsed.markers[-1].block - parent.parsed.markers[-1].block > 1

    class Windowed(OpenAIResponses):
        facts = _lookback(OpenAIResponses.facts, 1)

    assert cache_markers(replace(ctx, dialect=Windowed())).status == "fail"
    found = cache_markers(ctx)
    assert found.status == "pass", found.message
    assert found.message == (
        "children[0]'s marker on input[12] reads the parent's entry on input[6] (no lookback limit)"
    )


def _plain(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    """The parent's last message and each child's trailing task block marked, plain."""
    parent = orjson.loads(outcome.parent or b"{}")
    parent["input"][-1]["content"][-1]["prompt_cache_breakpoint"] = {}
    children = []
    for raw in outcome.children:
        body = orjson.loads(raw)
        body["input"][-1]["content"][-1]["prompt_cache_breakpoint"] = {}
        children.append(orjson.dumps(body))
    return replace(outcome, parent=orjson.dumps(parent), children=tuple(children))
