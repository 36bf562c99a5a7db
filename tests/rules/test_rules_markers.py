from dataclasses import replace
from typing import Any

import orjson
import pytest

from harness.dialects import Dialect, Facts, Markers
from harness.dialects.anthropic import AnthropicDialect
from harness.model import Request
from harness.rules._context import Context
from harness.rules._rules_markers import cache_markers
from harness.scenarios import Scenario
from harness.subjects import Outcome

from .bad_subjects import CASES, FIELD_CASES, GOOD_MARKERS, Mutant
from .edits import LONG_TTL, REMINDER
from .scenarios import BY_ID
from .support import REFERENCE, context, edited, finding, outcome


def test_markers_at_the_end_of_the_inherited_prefix_pass() -> None:
    found = finding(GOOD_MARKERS, "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "pass"
    assert found.message == (
        "children[0] marks messages[3].content[1], at or after the end of the inherited prefix "
        "(1 of 4 markers)"
    )
    assert finding(GOOD_MARKERS, "fork-model-calls", "anthropic", "byte-prefix").status == "pass"


def test_not_applicable_without_markers_or_in_dialects_without_them() -> None:
    none = finding(REFERENCE, "fork-model-calls", "anthropic", "cache-markers")
    assert (none.status, none.message) == (
        "not-applicable",
        "children[0] sets no cache markers (no cache_control anywhere: Anthropic caches "
        "nothing for this request)",
    )
    implicit = finding(REFERENCE, "fork-model-calls", "openai", "cache-markers")
    assert implicit.status == "pass"  # implicit caching: the child reads the parent's entry
    assert implicit.message.startswith("children[0] reads the parent's entry up to ")
    degraded = finding(GOOD_MARKERS, "degraded", "anthropic", "cache-markers")
    assert degraded.status == "not-applicable"


def test_a_marker_only_on_the_task_fails() -> None:
    found = finding(
        CASES["volatile-marker"].subject, "fork-model-calls", "anthropic", "cache-markers"
    )
    assert found.status == "fail"
    assert found.message == (
        "children[0]: the only marker at or after messages[3].content[1] is on the trailing "
        "task block"
    )


def test_markers_all_before_the_inherited_end_fail() -> None:
    def early(request: Request, *_: object) -> Request:
        return replace(request, cache_breakpoints=("tools[2]", "system[1]"))

    found = finding(edited("early", child=early), "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "fail"
    assert (
        "every marker comes before the end of the inherited prefix (messages[3].content[1])"
        in found.message
    )


def test_more_markers_than_the_dialect_allows_fail() -> None:
    found = finding(
        CASES["too-many-markers"].subject, "fork-model-calls", "anthropic", "cache-markers"
    )
    assert found.message == "children[0]: 5 cache markers where the dialect allows 4"
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
        "children[0]'s marker on messages[6].content[0] reads the parent's entry on "
        "messages[2].content[1] within the 20-position lookback window"
    )


def test_a_trailing_marker_of_a_child_that_left_the_parent_first_is_not_blamed() -> None:
    """A child whose system prompt differs reads nothing of the parent wherever it marks:
    byte-prefix charges that loss; its marker on the task still reaches the parent's entry
    (as Claude Code's children mark theirs), so cache-markers passes and says so."""

    def dated(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        outcome = _marked(EPHEMERAL, EPHEMERAL).outcome(outcome, scenario, dialect)  # type: ignore[misc]
        children = []
        for raw in outcome.children:
            body = orjson.loads(raw)
            body["system"] = f"{body.get('system') or ''} Today is 2026-01-01."
            children.append(orjson.dumps(body))
        return replace(outcome, children=tuple(children))

    subject = edited("dated-and-marked", outcome=dated)
    found = finding(subject, "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "pass", found.message
    assert found.message == (
        "children[0]'s marker on messages[6].content[0] reaches the parent's entry on "
        "messages[2].content[1] within the 20-position lookback window; the child leaves the "
        "parent before it (its loss is the divergence's)"
    )
    assert finding(subject, "fork-model-calls", "anthropic", "byte-prefix").status == "fail"


def test_a_trailing_marker_without_a_parent_entry_still_fails() -> None:
    found = finding(_marked(None, EPHEMERAL), "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "fail"


def _read(subject: Mutant, dialect: Dialect, scenario: str = "fork-model-calls") -> Context:
    """A context whose bodies are read by ``dialect`` (facts of a test's own)."""
    return Context.read(BY_ID[scenario], dialect, outcome(subject, scenario, dialect.name))


def _lookback(facts: Facts, lookback: int | None) -> Facts:
    """``facts`` with another marker lookback."""
    assert facts.markers is not None
    return replace(facts, markers=replace(facts.markers, lookback=lookback))


class Short(AnthropicDialect):
    """Anthropic with a lookback of one position: a breakpoint checks its own block only."""

    facts = _lookback(AnthropicDialect.facts, 1)


class Unlimited(AnthropicDialect):
    """Markers read as OpenAI's explicit breakpoints are: no lookback limit."""

    facts = _lookback(AnthropicDialect.facts, None)


def test_a_window_that_misses_every_parent_entry_fails_with_what_it_loses() -> None:
    ctx = _read(_marked(EPHEMERAL, EPHEMERAL), Short())
    found = cache_markers(ctx)
    assert found.status == "fail"
    assert found.message.startswith(
        "children[0]: no breakpoint reads the parent's entry at messages[2].content[1], which "
        "the child repeats: its breakpoints (messages[6].content[0] at block "
    )
    assert "each check 1 positions back" in found.message
    assert found.cost is not None
    assert found.cost.cause == "boundaries"
    assert found.cost.tokens == ctx.parent.priced.tokens[ctx.judged(ctx.children[0]).reachable]
    assert found.evidence is not None
    assert found.evidence.segment == "messages[6].content[0]"


def test_without_a_lookback_limit_a_marker_reads_any_entry_before_it() -> None:
    ctx = _read(_marked(EPHEMERAL, EPHEMERAL), Unlimited())
    found = cache_markers(ctx)
    assert found.status == "pass", found.message
    assert found.message == (
        "children[0]'s marker on messages[6].content[0] reads the parent's entry on "
        "messages[2].content[1] (no lookback limit)"
    )


def test_a_marker_before_every_parent_entry_reads_none() -> None:
    def head_only(request: Request, *_: object) -> Request:
        return replace(request, cache_breakpoints=("tools[0]",))

    def parent_last(request: Request, *_: object) -> Request:
        return replace(request, cache_breakpoints=(f"messages[{len(request.history) - 1}]",))

    subject = edited("head-only", child=head_only, parent=parent_last)
    for dialect in (Unlimited(), AnthropicDialect()):
        found = cache_markers(_read(subject, dialect))
        assert found.status == "fail"
        assert found.message.startswith(
            "children[0]: no breakpoint reads the parent's entry at messages[2].content[1]"
        )
        assert "(tools[0] at block 0)" in found.message
        assert found.evidence is not None
        assert found.evidence.segment == "tools[0]"


def test_the_guides_lookback_decides_between_two_children_whose_bytes_match() -> None:
    """A child whose only breakpoint lies 25 blocks past the parent's write reads nothing
    though it repeats the parent byte for byte; one within 20 blocks reads it all."""
    for extra, status in ((25, "fail"), (10, "pass")):
        ctx = _read(_far(extra), AnthropicDialect())
        judged = ctx.judged(ctx.children[0])
        assert judged.common == len(ctx.parent.priced.view.units)  # the bytes match
        found = cache_markers(ctx)
        assert found.status == status, found.message
        if status == "fail":
            assert judged.child.read == 0
        else:
            assert judged.child.read == ctx.parent.priced.total


def _far(extra: int) -> Mutant:
    """The reference with the parent's last block marked, and each child given ``extra``
    more text blocks in its last message, its marker on the last of them."""

    def edit(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        assert result.parent is not None
        parent = _mark_last(result.parent, EPHEMERAL)
        children = []
        for raw in result.children:
            body = orjson.loads(raw)
            message = body["messages"][-1]
            content = message["content"]
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            content += [{"type": "text", "text": f"note {k}"} for k in range(extra)]
            content[-1] = {**content[-1], "cache_control": EPHEMERAL}
            message["content"] = content
            children.append(orjson.dumps(body))
        return replace(result, parent=parent, children=tuple(children))

    return edited(f"far-{extra}", outcome=edit)


def test_openai_a_task_written_into_the_parents_last_message_reads_less() -> None:
    """OpenAI's lookup boundaries are message endings: a child that appends its task as a
    part of the parent's last user message has no boundary where the parent wrote."""

    def into_the_last(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        assert result.parent is not None
        parent = orjson.loads(result.parent)
        child = orjson.loads(result.parent)
        last = child["messages"][-1]
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"]}]
            parent["messages"][-1]["content"] = list(last["content"])
        last["content"].append({"type": "text", "text": "Directive: find it."})
        return replace(result, parent=orjson.dumps(parent), children=(orjson.dumps(child),))

    subject = edited("into-the-last", outcome=into_the_last)
    found = finding(subject, "fork-model-calls", "openai", "cache-markers")
    assert found.status == "fail"
    assert "no lookup boundary of the child falls where the parent wrote its entry" in (
        found.message
    )
    assert found.cost is not None
    assert found.cost.cause == "boundaries"
    assert found.cost.tokens > 0


def test_a_changed_ttl_writes_a_separate_entry_and_fails() -> None:
    subject = _marked({"type": "ephemeral", "ttl": "1h"}, EPHEMERAL)
    found = finding(subject, "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "fail"
    assert "has ttl 5m where the parent's on messages[2].content[1] has 1h" in found.message


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

    found = cache_markers(_read(edited("no-tools", outcome=drop_tools), Short()))
    assert "positions back" not in found.message  # its boundaries are not what loses it


# --- classes seen in the field: ttls, reminders, OpenAI's breakpoints --------------------------


@pytest.mark.parametrize(
    ("dialect", "where", "parent"),
    [
        ("anthropic", "messages[3].content[1]", "messages[2].content[1]"),
        ("openai-responses", "input[8]", "input[6].content[0]"),
    ],
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


@pytest.mark.parametrize(("dialect", "end"), [("anthropic", "messages[3].content[1]")])
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
    found = cache_markers(ctx)
    assert found.status == "pass", found.message
    assert found.message == (
        "children[0]'s marker on input[12].content[0] reads the parent's entry on "
        "input[6].content[0] (no lookback limit)"
    )


def test_openai_explicit_only_mode_reads_only_at_breakpoints() -> None:
    """In explicit-only mode a request looks up its explicit breakpoints alone: a child
    whose only breakpoint is not where the parent wrote reads nothing of it."""

    def explicit(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        plain = _plain(result, scenario, dialect)
        parent = orjson.loads(plain.parent or b"{}")
        parent["prompt_cache_options"] = {"mode": "explicit"}
        children = []
        for raw in plain.children:
            body = orjson.loads(raw)
            body["prompt_cache_options"] = {"mode": "explicit"}
            children.append(orjson.dumps(body))
        return replace(plain, parent=orjson.dumps(parent), children=tuple(children))

    found = finding(
        edited("explicit-only", outcome=explicit),
        "fork-model-calls",
        "openai-responses",
        "cache-markers",
    )
    assert found.status == "fail", found.message
    assert found.cost is not None
    assert found.cost.cause == "boundaries"


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
