"""How each known-bad subject breaks a request: edits of a child's neutral request, of a
rendered body, or of a whole outcome, one function per kind of bug seen in the field.

Child edits take ``(request, scenario, child index)``; body edits the decoded body and the
dialect too; outcome edits the reference's outcome. ``bad_subjects`` wraps them into subjects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson

from harness.assemblers import DEFAULT_WORDING, Wording, completed_prefix
from harness.dialects import get_dialect
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Part,
    Request,
    Text,
    freeze,
)
from harness.scenarios import Scenario
from harness.subjects import Outcome, ReferenceSubject

from .scenarios import PARENT_ID

__all__ = [
    "block_form",
    "crash",
    "env_first",
    "follow_ups_rewritten",
    "guidance_anyway",
    "guidance_in_system",
    "hoisted",
    "inherited_parts",
    "inline_exchanges",
    "keys_reversed",
    "last_marked",
    "leaky_spawn",
    "marks_inherited_end",
    "new_ids",
    "no_degraded_child",
    "no_image",
    "no_parent_id",
    "placeholders",
    "preset",
    "pruned",
    "redacted",
    "settings",
    "task_in_system",
    "too_many_marks",
    "truncated",
    "two_users",
    "unpaired",
]


# --- small edits of a neutral request ----------------------------------------------------------


def _inherited(scenario: Scenario) -> int:
    """How many leading messages of a child's history are inherited from the parent."""
    history = scenario.history
    if scenario.action == "continuable":
        return len(completed_prefix(history))
    return len(history) - (1 if history and history[-1].role == "user" else 0)


def preset(request: Request, **changes: Any) -> Request:
    return replace(request, preset=replace(request.preset, **changes))


def settings(request: Request, **changes: Any) -> Request:
    return preset(request, settings=replace(request.preset.settings, **changes))


def inherited_parts(
    request: Request, scenario: Scenario, edit: Callable[[Part], Part | None]
) -> Request:
    """Each part of the inherited messages through ``edit`` (None drops the part)."""
    n = _inherited(scenario)
    history = [
        Message(m.role, tuple(p for p in map(edit, m.parts) if p is not None)) if k < n else m
        for k, m in enumerate(request.history)
    ]
    return replace(request, history=tuple(history))


def everywhere(request: Request, edit: Callable[[Part], Part | None]) -> Request:
    """Each part of every message through ``edit``: a rendering of the subject's own."""
    history = tuple(
        Message(m.role, tuple(p for p in map(edit, m.parts) if p is not None))
        for m in request.history
    )
    return replace(request, history=history)


CACHE_KEY = "session-7f3"
"""The parent's ``prompt_cache_key`` in the fork-cache-key scenario."""


def own_cache_key(request: Request, scenario: Scenario, i: int) -> Request:
    """The child derives a routing key of its own instead of inheriting the parent's."""
    settings = request.preset.settings.with_extra("openai", {"prompt_cache_key": f"fork-{i}"})
    return preset(request, settings=settings)


def _last_text(request: Request, text: str) -> Request:
    """The request with its last message (the task) holding only ``text``."""
    last = Message("user", (Text(text),))
    return replace(request, history=(*request.history[:-1], last))


def task_in_system(request: Request, scenario: Scenario, i: int) -> Request:
    moved = preset(request, system=(*request.preset.system, request.history[-1].text))
    return _last_text(moved, "Begin.")


def env_first(request: Request, scenario: Scenario, i: int) -> Request:
    first = request.history[0]
    env = Text("<env>cwd: /home/dev/parser; git: main, 2 files changed</env>")
    return replace(request, history=(Message("user", (env, *first.parts)), *request.history[1:]))


def hoisted(request: Request, scenario: Scenario, i: int) -> Request:
    first = request.history[0]
    system = Text("\n".join(request.preset.system))
    history = (Message("user", (system, *first.parts)), *request.history[1:])
    return replace(preset(request, system=()), history=history)


def new_ids(request: Request, scenario: Scenario, i: int) -> Request:
    def renamed(part: Part) -> Part:
        if isinstance(part, FunctionCall | FunctionResponse) and part.id:
            return replace(part, id=f"resumed_{part.id}")
        return part

    return inherited_parts(request, scenario, renamed)


def pruned(part: Part) -> Part:
    return replace(part, response="[output pruned]") if isinstance(part, FunctionResponse) else part


def no_image(part: Part) -> Part:
    return Text("[image omitted]") if isinstance(part, Image) else part


def placeholders(request: Request, scenario: Scenario, i: int) -> Request:
    n = _inherited(scenario)
    closing = request.history[n]
    parts = tuple(
        replace(p, response=f"{p.response} (worker {i + 1})")
        if isinstance(p, FunctionResponse)
        else p
        for p in closing.parts
    )
    return replace(
        request, history=(*request.history[:n], Message("user", parts), *request.history[n + 1 :])
    )


def last_marked(request: Request, scenario: Scenario, i: int) -> Request:
    return replace(request, cache_breakpoints=(f"messages[{len(request.history) - 1}]",))


def marks_inherited_end(request: Request, scenario: Scenario, i: int) -> Request:
    return replace(request, cache_breakpoints=(f"messages[{_inherited(scenario) - 1}]",))


def too_many_marks(request: Request, scenario: Scenario, i: int) -> Request:
    marks = ("tools[0]", "tools[1]", "tools[2]", "system[0]", "system[1]")
    return replace(request, cache_breakpoints=marks)


def redacted(request: Request, scenario: Scenario, i: int) -> Request:
    def empty(part: Part) -> Part:
        if isinstance(part, FunctionCall) and part.name == scenario.fork_tool:
            return replace(part, args=freeze({}))
        return part

    return inherited_parts(request, scenario, empty)


def unpaired(request: Request, scenario: Scenario, i: int) -> Request:
    n = _inherited(scenario)
    closing = request.history[n]
    kept = Message("user", tuple(p for p in closing.parts if not isinstance(p, FunctionResponse)))
    return replace(request, history=(*request.history[:n], kept, *request.history[n + 1 :]))


def two_users(request: Request, scenario: Scenario, i: int) -> Request:
    trailing = scenario.history[-1]
    return replace(request, history=(*request.history[:-1], trailing, request.history[-1]))


_QUOTED_ID = orjson.dumps(PARENT_ID).decode()


def no_parent_id(request: Request, scenario: Scenario, i: int) -> Request:
    return _last_text(request, request.history[-1].text.replace(_QUOTED_ID, "your parent"))


def guidance_anyway(request: Request, scenario: Scenario, i: int) -> Request:
    guidance = DEFAULT_WORDING.guidance_for(PARENT_ID)
    return _last_text(request, f"{request.history[-1].text}\n\n{guidance}")


def guidance_in_system(request: Request, scenario: Scenario, i: int) -> Request:
    assert scenario.continuation is not None
    guidance = DEFAULT_WORDING.guidance_for(PARENT_ID)
    moved = preset(request, system=(*request.preset.system, guidance))
    return _last_text(moved, scenario.continuation.task)


def leaky_spawn(request: Request, scenario: Scenario, i: int) -> Request:
    context = Text(scenario.history[0].text)
    return replace(request, history=(Message("user", (context, *request.history[0].parts)),))


# --- edits of a rendered body or the outcome --------------------------------------------------


def _history_key(dialect: str) -> str:
    return "contents" if dialect == "gemini" else "messages"


def keys_reversed(body: dict[str, Any], scenario: Scenario, dialect: str, i: int) -> dict[str, Any]:
    key = _history_key(dialect)
    return {**body, key: [dict(reversed(m.items())) for m in body[key]]}


def block_form(body: dict[str, Any], scenario: Scenario, dialect: str, i: int) -> dict[str, Any]:
    """The first user message's text re-sent in the other form (gemini has one form only:
    a trailing space instead)."""
    if dialect == "gemini":
        first = body["contents"][0]
        part = {**first["parts"][0], "text": first["parts"][0]["text"] + " "}
        return {**body, "contents": [{**first, "parts": [part]}, *body["contents"][1:]]}
    messages = list(body["messages"])
    k = next(k for k, m in enumerate(messages) if m["role"] == "user")
    messages[k] = {**messages[k], "content": [{"type": "text", "text": messages[k]["content"]}]}
    return {**body, "messages": messages}


def follow_ups_rewritten(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    d = get_dialect(dialect)

    def compacted(raw: bytes) -> bytes:
        request = d.parse(orjson.loads(raw)).request
        summary = Message("user", (Text("Summary: the user asked to fix the parser."),))
        return d.render(replace(request, history=(summary, *request.history[1:])))

    return replace(outcome, follow_ups=tuple(compacted(b) for b in outcome.follow_ups))


def inline_exchanges(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    call = FunctionCall("search", freeze({"q": "last token"}), id="inline_1")
    grown = (
        *scenario.history,
        Message("user", (FunctionResponse("agent", "started", id="call_s"),)),
        Message("model", (call,)),
        Message("user", (FunctionResponse("search", "parser.py:42", id="inline_1"),)),
        Message("model", (Text("Line 42 drops it."),)),
        Message("user", (Text("Thanks."),)),
    )
    body = get_dialect(dialect).render(Request(scenario.preset, grown))
    return replace(outcome, parent_next=body)


def no_degraded_child(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    return Outcome("rejected", message="no cache-safe parameters yet; fork refused")


def truncated(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    return replace(outcome, children=(outcome.children[0][:40],))


def recursion_ignored(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    """A runtime that ignores the scenario's lifecycle fact (and knows another tag)."""
    other = ReferenceSubject(Wording(boilerplate_tag="worker-rules"))
    return other.assemble(replace(scenario, known_fork_child=False), dialect)


def crash(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    raise RuntimeError("fork tool not registered")
