"""Known-bad subjects: the reference implementation, broken in exactly one way each.

One per regression class the README lists ("What it checks", all 19), one per class seen in
the field since (each with its public bugs in the catalog's ``seen_in``), and more for rules no
class covers. Each wraps ``ReferenceSubject`` and changes a child's neutral request before
rendering, a rendered body, or the outcome (see ``edits``), the way that class of bug does in
the field. ``CASES`` and ``FIELD_CASES`` say which rule must catch each one, on which
scenarios and dialects, and where its evidence points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from harness.dialects import all_dialects, get_dialect
from harness.model import Request, Thinking, ThinkingConfig, ToolChoice
from harness.rules import Status
from harness.scenarios import Lifecycle, Scenario
from harness.subjects import Outcome, ReferenceSubject

from . import edits

__all__ = [
    "ALL_CASES",
    "CASES",
    "CLASSES",
    "DIALECTS",
    "DOCUMENTED_CLASSES",
    "FIELD_CASES",
    "FIELD_CLASSES",
    "GOOD_MARKERS",
    "Case",
    "Mutant",
]

DIALECTS = tuple(all_dialects())

ChildEdit = Callable[[Request, Scenario, int], Request]
BodyEdit = Callable[[dict[str, Any], Scenario, str, int], dict[str, Any]]
OutcomeEdit = Callable[[Outcome, Scenario, str], Outcome]


@dataclass(frozen=True)
class Mutant:
    """``ReferenceSubject`` with one edit: of each child request, child body, or the outcome."""

    name: str
    child: ChildEdit | None = None
    body: BodyEdit | None = None
    outcome: OutcomeEdit | None = None
    parent: ChildEdit | None = None
    """An edit of the parent's request too (index -1): a rendering the subject applies to
    every request it sends, so that parent and children agree."""
    base: ReferenceSubject = field(default_factory=ReferenceSubject)

    @property
    def dialects(self) -> tuple[str, ...]:
        return self.base.dialects

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]:
        return self.base.lifecycles

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        outcome = self.base.assemble(scenario, dialect)
        if self.outcome is not None:
            return self.outcome(outcome, scenario, dialect)
        d = get_dialect(dialect)
        children = []
        for i, raw in enumerate(outcome.children):
            if self.child is not None:
                raw = d.render(self.child(d.parse(orjson.loads(raw)).request, scenario, i))
            if self.body is not None:
                raw = orjson.dumps(self.body(orjson.loads(raw), scenario, dialect, i))
            children.append(raw)
        parent = outcome.parent
        if self.parent is not None and parent is not None:
            parent = d.render(self.parent(d.parse(orjson.loads(parent)).request, scenario, -1))
        return replace(outcome, parent=parent, children=tuple(children))


# --- the registry ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A bad subject, the rule that must catch it, and where its evidence must point.

    ``where`` maps a dialect to the expected (segment, path) of the evidence (segment None:
    the evidence names no segment of the body, e.g. a setting or a segment the body lacks).
    ``documented_class`` is the README's regression class, ``field_class`` a class seen in the field
    since (``FIELD_CLASSES``); both None for the extras.
    """

    subject: Mutant
    rule: str
    scenarios: tuple[str, ...]
    documented_class: str | None = None
    status: Status = "fail"
    dialects: tuple[str, ...] = DIALECTS
    where: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    also_passes: tuple[str, ...] = ()
    """Rules that must still pass (the difference is reported by ``rule`` alone)."""
    field_class: str | None = None
    also_fails: tuple[str, ...] = ()
    """Rules that must fail too (the bug changes more than one thing the rules judge)."""

    @property
    def regression_class(self) -> str | None:
        """The class the subject belongs to, of the README's 19 or seen in the field; None for
        extras."""
        return self.documented_class or self.field_class


_CALLS = ("fork-model-calls",)
_THINKING = ThinkingConfig(mode="enabled", budget_tokens=1024, effort="low")
_ANTHROPIC_ONLY = ("anthropic",)
"""Dialects where a marker on the trailing block alone costs its siblings and next turn: with
OpenAI's implicit caching the end of the latest eligible message is a breakpoint anyway."""
_MARKERS = ("anthropic", "openai-responses")
"""The dialects whose requests carry cache markers."""
_SYSTEM_ROLE = ("anthropic", "openai", "openai-responses")
"""The dialects with system-role messages inside the conversation (Gemini has none)."""

DOCUMENTED_CLASSES: tuple[str, ...] = (
    "tool order not fixed",
    "tool set churn",
    "JSON key order drift",
    "timestamp or date in the system prompt",
    "environment values in the head",
    "mutable memory spliced into the system prompt",
    "byte drift in old messages",
    "history rebuilt differently on resume",
    "a child identity or system section differing from the parent's",
    "thinking/effort changed in the child",
    "model switched",
    "history rewritten before the fork point",
    "thinking blocks stripped",
    "images pruned or toggled",
    "cache markers placed on a volatile trailing block",
    "gateway-style reshaping",
    "tool_choice or structured-output schema changed in the child",
    "placeholder responses differing between siblings",
    "child-only text placed in the system prompt or before the inherited history",
)
"""The 19 regression classes the README lists, by name (parenthesised examples left out)."""

FIELD_CLASSES: tuple[str, ...] = (
    "a routing key derived by the child instead of inherited",
    "a cache marker's ttl dropped in the child",
    "a cache marker's ttl changed in the child",
    "a cache breakpoint on a trailing system-role message",
    "tool list reordered on an MCP reconnect",
    "a tool added mid-session ahead of the history",
    "a mid-turn steer sent as a system-role message",
    "a review fork that rebuilds the system prompt for a subset of the tools",
    "a fork that forces its own thinking effort",
)
"""Regression classes seen in the field since the README's 19, each with the public bugs it comes
from in the catalog (``seen_in`` of the rule that catches it)."""

CLASSES = DOCUMENTED_CLASSES + FIELD_CLASSES
"""Every regression class, the README's 19 first."""

_C = DOCUMENTED_CLASSES
_F = FIELD_CLASSES

CASES: dict[str, Case] = {
    "tool-order": Case(
        Mutant("tool-order", child=lambda r, s, i: edits.preset(r, tools=r.preset.tools[::-1])),
        "tools-identical",
        _CALLS,
        _C[0],
        where={
            "anthropic": ("tools[0]", "tools[0].name"),
            "openai": ("tools[0]", "tools[0].function.name"),
            "gemini": ("tools[0].functionDeclarations[0]", "tools[0].functionDeclarations[0].name"),
            "openai-responses": ("tools[0]", "tools[0].name"),
        },
    ),
    "tool-churn": Case(
        Mutant("tool-churn", child=lambda r, s, i: edits.preset(r, tools=r.preset.tools[:-1])),
        "tools-identical",
        _CALLS,
        _C[1],
        where={
            "anthropic": (None, "tools[2]"),
            "openai": (None, "tools[2]"),
            "gemini": (None, "tools[0].functionDeclarations[2]"),
            "openai-responses": (None, "tools[2]"),
        },
    ),
    "key-order": Case(
        Mutant("key-order", body=edits.keys_reversed),
        "byte-prefix",
        _CALLS,
        _C[2],
        where={
            "anthropic": ("messages[1].content[2]", "messages[1].content[2].input"),
            "openai": ("messages[3].tool_calls[0]", "messages[3].tool_calls[0].function.arguments"),
            "gemini": ("contents[1].parts[2]", "contents[1].parts[2].functionCall.args"),
            "openai-responses": ("input[4]", "input[4].arguments"),
        },
    ),
    "timestamp": Case(
        Mutant(
            "timestamp",
            child=lambda r, s, i: edits.preset(
                r, system=(r.preset.system[0] + " Now: 2025-11-30T11:17Z.", *r.preset.system[1:])
            ),
        ),
        "system-identical",
        _CALLS,
        _C[3],
        where={
            "anthropic": ("system[0]", "system[0].text"),
            "openai": ("messages[0].content", "messages[0].content"),
            "gemini": ("systemInstruction.parts[0]", "systemInstruction.parts[0].text"),
            "openai-responses": ("instructions", "instructions"),
        },
    ),
    "environment": Case(
        Mutant("environment", child=edits.env_first),
        "history-inherited",
        _CALLS,
        _C[4],
        where={
            "anthropic": ("messages[0].content[0]", "messages[0].content[0].text"),
            "openai": ("messages[2].content[0]", "messages[2].content[0]"),
            "gemini": ("contents[0].parts[0]", "contents[0].parts[0].text"),
            "openai-responses": ("input[1].content[0]", "input[1].content[0].text"),
        },
    ),
    "memory": Case(
        Mutant(
            "memory",
            child=lambda r, s, i: edits.preset(
                r, system=(*r.preset.system, "Memory: the user prefers short answers.")
            ),
        ),
        "system-identical",
        _CALLS,
        _C[5],
        where={
            "anthropic": ("system[2]", "system[2]"),
            "openai": ("messages[2]", "messages[2]"),
            "gemini": ("systemInstruction.parts[2]", "systemInstruction.parts[2]"),
            "openai-responses": ("input[0].content[1]", "input[0].content[1]"),
        },
    ),
    "byte-drift": Case(
        Mutant("byte-drift", body=edits.block_form),
        "byte-prefix",
        _CALLS,
        _C[6],
        where={
            "anthropic": ("messages[0].content[0]", "messages[0].content[0].text"),
            "openai": ("messages[2].content[0]", "messages[2].content[0]"),
            "gemini": ("contents[0].parts[0]", "contents[0].parts[0].text"),
            "openai-responses": ("input[1].content", "input[1].content"),
        },
    ),
    "resume-rebuilt": Case(
        Mutant("resume-rebuilt", child=edits.new_ids),
        "history-inherited",
        ("continuable",),
        _C[7],
        where={
            "anthropic": ("messages[1].content[2]", "messages[1].content[2].id"),
            "openai": ("messages[3].tool_calls[0]", "messages[3].tool_calls[0].id"),
            "gemini": ("contents[1].parts[2]", "contents[1].parts[2].functionCall.id"),
            "openai-responses": ("input[4]", "input[4].call_id"),
        },
    ),
    "child-identity": Case(
        Mutant(
            "child-identity",
            child=lambda r, s, i: edits.preset(r, system=("You are a forked worker agent.",)),
        ),
        "system-identical",
        _CALLS,
        _C[8],
        where={
            "anthropic": ("system[0]", "system[0].text"),
            "openai": ("messages[0].content", "messages[0].content"),
            "gemini": ("systemInstruction.parts[0]", "systemInstruction.parts[0].text"),
            "openai-responses": ("instructions", "instructions"),
        },
    ),
    "thinking-changed": Case(
        Mutant("thinking-changed", child=lambda r, s, i: edits.settings(r, thinking=_THINKING)),
        "settings-identical",
        _CALLS,
        _C[9],
        dialects=("anthropic", "openai", "openai-responses"),  # keyed on thinking, on effort
        where={
            "anthropic": (None, "thinking"),
            "openai": (None, "reasoning_effort"),
            "openai-responses": (None, "reasoning.effort"),
        },
    ),
    "thinking-changed-no-cache-effect": Case(
        Mutant(
            "thinking-changed-no-cache-effect",
            child=lambda r, s, i: edits.settings(r, thinking=_THINKING),
        ),
        "settings-identical",
        _CALLS,
        _C[9],
        status="warning",  # no documented cache effect: the child runs otherwise configured
        dialects=("gemini",),
        where={"gemini": (None, "generationConfig.thinkingConfig")},
    ),
    "model-switched": Case(
        Mutant("model-switched", child=lambda r, s, i: edits.settings(r, model="model-small")),
        "settings-identical",
        _CALLS,
        _C[10],
        dialects=("anthropic", "openai", "openai-responses"),  # gemini: the model is in the URL
        where={
            "anthropic": (None, "model"),
            "openai": (None, "model"),
            "openai-responses": (None, "model"),
        },
    ),
    "pruned": Case(
        Mutant("pruned", child=lambda r, s, i: edits.inherited_parts(r, s, edits.pruned)),
        "history-inherited",
        _CALLS,
        _C[11],
        where={
            "anthropic": ("messages[2].content[0]", "messages[2].content[0].content"),
            "openai": ("messages[4].content", "messages[4].content"),
            "gemini": ("contents[2].parts[0]", "contents[2].parts[0].functionResponse.response"),
            "openai-responses": ("input[5]", "input[5].output"),
        },
    ),
    "thinking-stripped": Case(
        Mutant(
            "thinking-stripped",
            child=lambda r, s, i: edits.inherited_parts(
                r, s, lambda p: None if isinstance(p, Thinking) else p
            ),
        ),
        "history-inherited",
        _CALLS,
        _C[12],
        where={
            "anthropic": ("messages[1].content[0]", "messages[1].content[0].type"),
            "openai": ("messages[3]", "messages[3]"),
            "gemini": ("contents[1].parts[0]", "contents[1].parts[0].text"),
            "openai-responses": ("input[2]", "input[2].type"),
        },
    ),
    "images-pruned": Case(
        Mutant("images-pruned", child=lambda r, s, i: edits.inherited_parts(r, s, edits.no_image)),
        "history-inherited",
        _CALLS,
        _C[13],
        where={
            "anthropic": ("messages[2].content[1]", "messages[2].content[1].type"),
            "openai": ("messages[5].content", "messages[5].content"),
            "gemini": ("contents[2].parts[1]", "contents[2].parts[1]"),
            "openai-responses": ("input[6].content[0]", "input[6].content[0].type"),
        },
    ),
    "volatile-marker": Case(
        Mutant("volatile-marker", body=edits.last_marked),
        "cache-markers",
        _CALLS,
        _C[14],
        dialects=_ANTHROPIC_ONLY,
        where={
            "anthropic": ("messages[6].content[0]", "messages[6].content[0]"),
        },
    ),
    "gateway": Case(
        Mutant("gateway", child=edits.hoisted),
        "system-identical",
        _CALLS,
        _C[15],
        where={
            "anthropic": (None, "system[0]"),
            "openai": (None, "messages[0]"),
            "gemini": (None, "systemInstruction.parts[0]"),
            "openai-responses": (None, "instructions"),
        },
    ),
    "tool-choice": Case(
        Mutant(
            "tool-choice",
            child=lambda r, s, i: edits.settings(r, tool_choice=ToolChoice("required")),
        ),
        "settings-identical",
        _CALLS,
        _C[16],
        dialects=("anthropic", "gemini"),  # keyed on it, or it is a prefix segment
        where={
            "anthropic": (None, "tool_choice"),
            "gemini": ("toolConfig", "toolConfig.functionCallingConfig.mode"),
        },
    ),
    "tool-choice-no-cache-effect": Case(
        Mutant(
            "tool-choice-no-cache-effect",
            child=lambda r, s, i: edits.settings(r, tool_choice=ToolChoice("required")),
        ),
        "settings-identical",
        _CALLS,
        _C[16],
        status="warning",
        dialects=("openai", "openai-responses"),
        where={
            "openai": (None, "tool_choice"),
            "openai-responses": (None, "tool_choice"),
        },
    ),
    "cache-key-derived": Case(
        Mutant("cache-key-derived", child=edits.own_cache_key),
        "settings-identical",
        ("fork-cache-key",),
        dialects=("openai", "openai-responses"),
        where={
            "openai": (None, "prompt_cache_key"),
            "openai-responses": (None, "prompt_cache_key"),
        },
        field_class=_F[0],
    ),
    "parent-drops-images": Case(
        Mutant(
            "parent-drops-images",
            child=lambda r, s, i: edits.everywhere(r, edits.no_image),
            parent=lambda r, s, i: edits.everywhere(r, edits.no_image),
        ),
        "parent-faithful",
        _CALLS,
        also_passes=("byte-prefix", "history-inherited"),
        where={
            "anthropic": ("messages[2]", "messages[2]"),
            "openai": ("messages[4]", "messages[4]"),
            "gemini": ("contents[2]", "contents[2]"),
            "openai-responses": ("input[5]", "input[5]"),
        },
    ),
    "sibling-placeholders": Case(
        Mutant("sibling-placeholders", child=edits.placeholders),
        "siblings-shared",
        ("siblings",),
        _C[17],
        where={
            "anthropic": ("messages[4].content[0]", "messages[4].content[0].content"),
            "openai": ("messages[7].content", "messages[7].content"),
            "gemini": (
                "contents[4].parts[0]",
                "contents[4].parts[0].functionResponse.response.output",
            ),
            "openai-responses": ("input[10]", "input[10].output"),
        },
    ),
    "task-in-system": Case(
        Mutant("task-in-system", child=edits.task_in_system),
        "task-after-prefix",
        ("fork-model", "continuable"),
        _C[18],
        where={
            "anthropic": ("system[2]", "system[2]"),
            "openai": ("messages[2].content", "messages[2].content"),
            "gemini": ("systemInstruction.parts[2]", "systemInstruction.parts[2]"),
            "openai-responses": ("input[0].content[1]", "input[0].content[1]"),
        },
    ),
    # --- rules no regression class covers ---
    "recursion-allowed": Case(
        Mutant("recursion-allowed", outcome=edits.recursion_ignored),
        "recursion-rejected",
        ("recursive",),
    ),
    "parent-id-missing": Case(
        Mutant("parent-id-missing", child=edits.no_parent_id),
        "parent-id-guidance",
        ("continuable",),
    ),
    "guidance-without-tool": Case(
        Mutant("guidance-without-tool", child=edits.guidance_anyway),
        "parent-id-guidance",
        ("continuable-filtered",),
    ),
    "guidance-in-system": Case(
        Mutant("guidance-in-system", child=edits.guidance_in_system),
        "parent-id-guidance",
        ("continuable",),
    ),
    "spawn-leaks": Case(
        Mutant("spawn-leaks", child=edits.leaky_spawn), "spawn-isolated", ("spawn",)
    ),
    "spawn-parent-grows": Case(
        Mutant("spawn-parent-grows", outcome=edits.inline_exchanges), "spawn-isolated", ("spawn",)
    ),
    "follow-up-rewrites": Case(
        Mutant("follow-up-rewrites", outcome=edits.follow_ups_rewritten),
        "append-only",
        ("continuable-follow-ups",),
    ),
    "alternation-broken": Case(
        Mutant("alternation-broken", child=edits.two_users),
        "alternation",
        ("fork-user",),
        # Anthropic combines consecutive turns of one role, the Responses API reads them as
        # they are (each dialect's Facts.consecutive_turns): two user turns break nothing there
        dialects=("gemini", "openai"),
    ),
    "call-unpaired": Case(Mutant("call-unpaired", child=edits.unpaired), "call-pairing", _CALLS),
    "args-redacted": Case(
        Mutant("args-redacted", child=edits.redacted),
        "call-args-kept",
        (*_CALLS, "siblings"),
        status="warning",
        also_passes=("history-inherited", "byte-prefix"),
    ),
    "degraded-no-child": Case(
        Mutant("degraded-no-child", outcome=edits.no_degraded_child),
        "degraded-fallback",
        ("degraded",),
    ),
    "too-many-markers": Case(
        Mutant("too-many-markers", child=edits.too_many_marks),
        "cache-markers",
        _CALLS,
        dialects=("anthropic",),
    ),
    "body-truncated": Case(
        Mutant("body-truncated", outcome=edits.truncated), "well-formed", _CALLS
    ),
    "subject-crashes": Case(
        Mutant("subject-crashes", outcome=edits.crash), "subject-error", _CALLS
    ),
}

FIELD_CASES: dict[str, Case] = {
    "marker-ttl-dropped": Case(
        Mutant("marker-ttl-dropped", outcome=edits.ttl_dropped),
        "cache-markers",
        _CALLS,
        dialects=_MARKERS,
        where={
            "anthropic": ("messages[3].content[1]", "messages[3].content[1]"),
            "openai-responses": ("input[8]", "input[8]"),
        },
        field_class=_F[1],
    ),
    "marker-ttl-changed": Case(
        Mutant("marker-ttl-changed", outcome=edits.ttl_changed),
        "cache-markers",
        _CALLS,
        dialects=_MARKERS,
        where={
            "anthropic": ("messages[3].content[1]", "messages[3].content[1]"),
            "openai-responses": ("input[8]", "input[8]"),
        },
        field_class=_F[2],
    ),
    "reminder-marked": Case(
        Mutant("reminder-marked", body=edits.marked_on_trailing_reminder),
        "cache-markers",
        _CALLS,
        dialects=_ANTHROPIC_ONLY,
        where={
            "anthropic": ("messages[7].content[0]", "messages[7].content[0]"),
        },
        field_class=_F[3],
        also_passes=("byte-prefix", "history-inherited"),  # the reminder comes after them
    ),
    "reconnect-reorders": Case(
        Mutant("reconnect-reorders", outcome=edits.reconnect_reorders),
        "append-only",
        ("continuable-follow-ups",),
        where={
            "anthropic": ("tools[0]", "tools[0].name"),
            "gemini": ("tools[0].functionDeclarations[0]", "tools[0].functionDeclarations[0].name"),
            "openai": ("tools[0]", "tools[0].function.name"),
            "openai-responses": ("tools[0]", "tools[0].name"),
        },
        field_class=_F[4],
    ),
    "tool-added-mid-session": Case(
        Mutant("tool-added-mid-session", outcome=edits.tool_added_mid_session),
        "append-only",
        ("continuable-follow-ups",),
        where={
            "anthropic": ("tools[4]", "tools[4]"),
            "gemini": ("tools[0].functionDeclarations[4]", "tools[0].functionDeclarations[4]"),
            "openai": ("tools[4]", "tools[4]"),
            "openai-responses": ("tools[4]", "tools[4]"),
        },
        field_class=_F[5],
    ),
    "steer-hoisted": Case(
        Mutant("steer-hoisted", outcome=edits.steer_hoisted),
        "append-only",
        ("continuable-steered",),
        dialects=_SYSTEM_ROLE,
        where={
            "anthropic": ("system[2]", "system[2]"),
            "openai": ("messages[2]", "messages[2].role"),
            "openai-responses": ("input[0].content[1]", "input[0].content[1]"),
        },
        field_class=_F[6],
    ),
    "review-fork-subset": Case(
        Mutant("review-fork-subset", child=edits.review_fork),
        "tools-identical",
        _CALLS,
        where={
            "anthropic": ("tools[0]", "tools[0].name"),
            "gemini": ("tools[0].functionDeclarations[0]", "tools[0].functionDeclarations[0].name"),
            "openai": ("tools[0]", "tools[0].function.name"),
            "openai-responses": ("tools[0]", "tools[0].name"),
        },
        field_class=_F[7],
        also_fails=("system-identical",),
    ),
    "effort-forced": Case(
        Mutant("effort-forced", child=edits.effort_forced),
        "settings-identical",
        ("fork-effort",),
        dialects=("anthropic", "openai", "openai-responses"),  # keyed on output_config, effort
        where={
            "anthropic": (None, "output_config"),
            "openai": (None, "reasoning_effort"),
            "openai-responses": (None, "reasoning.effort"),
        },
        field_class=_F[8],
    ),
    "effort-forced-no-cache-effect": Case(
        Mutant("effort-forced-no-cache-effect", child=edits.effort_forced),
        "settings-identical",
        ("fork-effort",),
        status="warning",  # not in the dialect's cache keys: see docs/dialects.md
        dialects=("gemini",),
        where={"gemini": (None, "generationConfig.thinkingConfig")},
        field_class=_F[8],
    ),
}
"""The bad subjects of the classes seen in the field (``FIELD_CLASSES``) that ``CASES`` does
not hold already, pinned on the hand-built scenarios (the property tests plant ``CASES``)."""

ALL_CASES: dict[str, Case] = {**CASES, **FIELD_CASES}
"""Every known-bad subject."""

GOOD_MARKERS = Mutant("good-markers", child=edits.marks_inherited_end)
"""Not bad: marks the last inherited message, which cache-markers must pass."""
