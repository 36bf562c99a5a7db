"""How each known-bad subject breaks a request: edits of a child's neutral request, of a
rendered body, or of a whole outcome, one function per kind of bug seen in the field.

Child edits take ``(request, scenario, child index)``; body edits the decoded body and the
dialect too; outcome edits the reference's outcome. ``bad_subjects`` wraps them into subjects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeAlias

import orjson

from harness.assemblers import DEFAULT_WORDING, Wording
from harness.dialects import get_dialect
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Part,
    Request,
    Text,
    ThinkingConfig,
    Tool,
    freeze,
)
from harness.scenarios import Scenario, completed_prefix
from harness.subjects import Outcome, ReferenceSubject

from .scenarios import PARENT_ID

OutcomeEdit: TypeAlias = Callable[[Outcome, Scenario, str], Outcome]

__all__ = [
    "LONG_TTL",
    "block_form",
    "crash",
    "effort_forced",
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
    "marked_on_trailing_reminder",
    "marker",
    "marks_inherited_end",
    "new_ids",
    "no_degraded_child",
    "no_image",
    "no_parent_id",
    "placeholders",
    "preset",
    "pruned",
    "reconnect_reorders",
    "redacted",
    "review_fork",
    "settings",
    "steer_hoisted",
    "task_in_system",
    "too_many_marks",
    "tool_added_mid_session",
    "truncated",
    "ttl_changed",
    "ttl_dropped",
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
    """The child derives a routing key of its own instead of inheriting the parent's (both
    OpenAI dialects send it; each reads its own entry of ``extra``)."""
    key = {"prompt_cache_key": f"fork-{i}"}
    settings = request.preset.settings
    settings = settings.with_extra("openai", key).with_extra("openai-responses", key)
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


def last_marked(body: dict[str, Any], scenario: Scenario, dialect: str, i: int) -> dict[str, Any]:
    """The child's only marker on its trailing task block."""
    return _marked_entries(body, dialect, {-1: marker(dialect)})


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
    return {"gemini": "contents", "openai-responses": "input"}.get(dialect, "messages")


# --- cache markers, as each dialect that has them sends them ----------------------------------

MARKER_FIELD = {"anthropic": "cache_control", "openai-responses": "prompt_cache_breakpoint"}
"""The field of a block (or an item) that marks it, in the dialects with markers."""
LONG_TTL = {"anthropic": "1h", "openai-responses": "24h"}
"""A ttl other than the dialect's default, as a runtime asks for a longer-lived entry."""
REMINDER = "<budget>41,200 tokens left</budget>"
"""A per-turn reminder a runtime appends as a system-role message: its text changes each turn."""


def marker(dialect: str, ttl: str | None = None) -> dict[str, Any]:
    """The marker object of ``dialect`` (its default ttl when ``ttl`` is None)."""
    plain: dict[str, Any] = {"type": "ephemeral"} if dialect == "anthropic" else {}
    return plain if ttl is None else {**plain, "ttl": ttl}


def _marked_entry(entry: dict[str, Any], dialect: str, value: dict[str, Any]) -> dict[str, Any]:
    """A message (an item) with ``value`` on its last block: a string content becomes one
    text block; an item without content blocks is marked itself."""
    field = MARKER_FIELD[dialect]
    content = entry.get("content")
    if isinstance(content, str):
        kind = "text"
        if dialect == "openai-responses":
            kind = "output_text" if entry.get("role") == "assistant" else "input_text"
        content = [{"type": kind, "text": content}]
    if isinstance(content, list) and content:
        return {**entry, "content": [*content[:-1], {**content[-1], field: value}]}
    return {**entry, field: value}


def _marked_entries(
    body: dict[str, Any], dialect: str, marks: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    """The body with a marker on the last block of each history entry ``k`` (messages,
    items; negative from the end) of ``marks``; unchanged in dialects without markers."""
    if dialect not in MARKER_FIELD:
        return body
    key = _history_key(dialect)
    entries = list(body[key])
    for k, value in marks.items():
        entries[k] = _marked_entry(entries[k], dialect, value)
    return {**body, key: entries}


def _marked_system(body: dict[str, Any], dialect: str, value: dict[str, Any]) -> dict[str, Any]:
    """The body with a marker on its last system block (the tools and system: the floor a
    request reads whatever its messages hold)."""
    if dialect == "anthropic":
        system = body["system"]
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
        blocks[-1] = {**blocks[-1], MARKER_FIELD[dialect]: value}
        return {**body, "system": blocks}
    leading = next(
        k for k, item in enumerate(body["input"]) if item.get("role") in ("developer", "system")
    )
    return _marked_entries(body, dialect, {leading: value})


def _inherited_entries(raw: bytes, scenario: Scenario, dialect: str) -> int:
    """How many history entries (messages, items) of a child body carry its inherited span."""
    d = get_dialect(dialect)
    request = d.parse(orjson.loads(raw)).request
    span = replace(request, history=request.history[: _inherited(scenario)])
    return len(orjson.loads(d.render(span))[_history_key(dialect)])


def _with_markers(
    outcome: Outcome,
    dialect: str,
    parent: Callable[[dict[str, Any]], dict[str, Any]],
    child: Callable[[dict[str, Any], bytes], dict[str, Any]],
) -> Outcome:
    """The outcome with the parent's body and each child's body (and its raw bytes) edited:
    markers only, so that both still carry the same prefix stream."""
    assert outcome.parent is not None
    marked = orjson.dumps(parent(orjson.loads(outcome.parent)))
    children = tuple(orjson.dumps(child(orjson.loads(raw), raw)) for raw in outcome.children)
    return replace(outcome, parent=marked, children=children)


def _ttl_marks(parent_ttl: str | None, child_ttl: str | None) -> OutcomeEdit:
    """The parent marks its last message and each child its last inherited message, each
    with its own ttl: the child's marker reads the parent's entry, unless the ttls differ."""

    def edit(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        def child(body: dict[str, Any], raw: bytes) -> dict[str, Any]:
            end = _inherited_entries(raw, scenario, dialect) - 1
            return _marked_entries(body, dialect, {end: marker(dialect, child_ttl)})

        return _with_markers(
            outcome,
            dialect,
            lambda body: _marked_entries(body, dialect, {-1: marker(dialect, parent_ttl)}),
            child,
        )

    return edit


def ttl_dropped(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    """The parent's markers ask for a long ttl; the child's are re-placed bare (a proxy that
    consolidates breakpoints, a runtime that strips the ttl of subagent requests)."""
    return _ttl_marks(LONG_TTL.get(dialect), None)(outcome, scenario, dialect)


def ttl_changed(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    """The parent's markers use the default ttl; the child asks for a ttl tier of its own."""
    return _ttl_marks(None, LONG_TTL.get(dialect))(outcome, scenario, dialect)


def _reminder(dialect: str) -> dict[str, Any]:
    """A per-turn reminder as a system-role message, its one block marked."""
    kind = "input_text" if dialect == "openai-responses" else "text"
    block = {"type": kind, "text": REMINDER, MARKER_FIELD[dialect]: marker(dialect)}
    if dialect == "openai-responses":
        return {"type": "message", "role": "system", "content": [block]}
    return {"role": "system", "content": [block]}


def marked_on_trailing_reminder(
    body: dict[str, Any], scenario: Scenario, dialect: str, i: int
) -> dict[str, Any]:
    """The child marks its system prompt and ends with a per-turn reminder sent as a
    system-role message, which carries its only marker on the conversation. The next request
    sends a new reminder instead of repeating this one, so the entry written there is never
    read: of the child's request, only the tools and system stay cached for what follows."""
    if dialect not in MARKER_FIELD:
        return body
    key = _history_key(dialect)
    floor = _marked_system(body, dialect, marker(dialect))
    return {**floor, key: [*floor[key], _reminder(dialect)]}


def keys_reversed(body: dict[str, Any], scenario: Scenario, dialect: str, i: int) -> dict[str, Any]:
    """Every call's arguments in the history re-sent with their keys in reverse order: the
    model reads them as JSON, so this key order is rendered (a message object's own key
    order is not: ``envelope_keys_reversed``)."""
    key = _history_key(dialect)
    return {**body, key: [_call_args_reversed(m) for m in body[key]]}


def envelope_keys_reversed(
    body: dict[str, Any], scenario: Scenario, dialect: str, i: int
) -> dict[str, Any]:
    """Every message object of the history re-sent with its keys in reverse order."""
    key = _history_key(dialect)
    return {**body, key: [dict(reversed(m.items())) for m in body[key]]}


def _reversed(value: Any) -> Any:
    return dict(reversed(value.items())) if isinstance(value, dict) else value


def _reversed_text(text: Any) -> Any:
    """A JSON object's text re-encoded with its keys in reverse order."""
    if not isinstance(text, str):
        return text
    return orjson.dumps(_reversed(orjson.loads(text))).decode()


def _call_args_reversed(item: dict[str, Any]) -> dict[str, Any]:
    """One history item with the arguments of its calls' keys reversed, in its dialect's
    shape (tool_use input, tool_calls arguments, a function_call item, functionCall args)."""
    out = dict(item)
    if item.get("type") == "function_call":
        out["arguments"] = _reversed_text(item.get("arguments"))
    if isinstance(item.get("tool_calls"), list):
        out["tool_calls"] = [
            {
                **c,
                "function": {
                    **c["function"],
                    "arguments": _reversed_text(c["function"]["arguments"]),
                },
            }
            for c in item["tool_calls"]
        ]
    for key in ("content", "parts"):
        if isinstance(item.get(key), list):
            out[key] = [_call_part_reversed(p) for p in item[key]]
    return out


def _call_part_reversed(part: Any) -> Any:
    if not isinstance(part, dict):
        return part
    if part.get("type") == "tool_use":
        return {**part, "input": _reversed(part.get("input"))}
    call = part.get("functionCall")
    if isinstance(call, dict):
        return {**part, "functionCall": {**call, "args": _reversed(call.get("args"))}}
    return part


def block_form(body: dict[str, Any], scenario: Scenario, dialect: str, i: int) -> dict[str, Any]:
    """The first user message's text re-sent in the other form where the provider documents
    no equivalence of the two (OpenAI), with a trailing space where it has one form only
    (Gemini) or documents the two forms as one prompt (Anthropic)."""
    if dialect == "gemini":
        first = body["contents"][0]
        part = {**first["parts"][0], "text": first["parts"][0]["text"] + " "}
        return {**body, "contents": [{**first, "parts": [part]}, *body["contents"][1:]]}
    if dialect == "openai-responses":  # a list of input_text parts, sent as a string
        items = list(body["input"])
        k = next(k for k, m in enumerate(items) if m.get("role") == "user")
        items[k] = {**items[k], "content": items[k]["content"][0]["text"]}
        return {**body, "input": items}
    messages = list(body["messages"])
    k = next(k for k, m in enumerate(messages) if m["role"] == "user")
    if dialect == "anthropic":  # one form renders as the other: whitespace drifts instead
        messages[k] = {**messages[k], "content": messages[k]["content"] + " "}
        return {**body, "messages": messages}
    messages[k] = {**messages[k], "content": [{"type": "text", "text": messages[k]["content"]}]}
    return {**body, "messages": messages}


def _follow_ups(outcome: Outcome, dialect: str, edit: Callable[[Request], Request]) -> Outcome:
    """The outcome with each follow-up request of the continuing child through ``edit``."""
    d = get_dialect(dialect)

    def edited(raw: bytes) -> bytes:
        return d.render(edit(d.parse(orjson.loads(raw)).request))

    return replace(outcome, follow_ups=tuple(edited(raw) for raw in outcome.follow_ups))


def reconnect_reorders(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    """An MCP server reconnects before the child's next turn: the runtime removes that
    server's tools (here the first one) from its list and pushes them back at the end."""

    def reordered(request: Request) -> Request:
        tools = request.preset.tools
        return preset(request, tools=(*tools[1:], tools[0]))

    return _follow_ups(outcome, dialect, reordered)


DEFERRED_TOOL = Tool(
    "edit_file",
    "Replace one span of a file.",
    freeze({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
)
"""A tool the runtime declares only once it is first used (a deferred or lazily loaded tool)."""


def tool_added_mid_session(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    """A deferred tool is loaded on its first use: from the next turn on it is declared at
    the end of the tools, which come before every message of the history."""
    return _follow_ups(
        outcome, dialect, lambda r: preset(r, tools=(*r.preset.tools, DEFERRED_TOOL))
    )


def steer_hoisted(outcome: Outcome, scenario: Scenario, dialect: str) -> Outcome:
    """A message the user sends while tools run (the text beside the results) goes out as a
    system-role message, and the gateway in front of the provider merges every system-role
    message into the system instruction at the head of the request."""

    def hoisted_steers(request: Request) -> Request:
        steers: list[str] = []
        history = []
        for message in request.history:
            if message.role == "user" and message.function_responses:
                texts = [p.text for p in message.parts if isinstance(p, Text)]
                kept = tuple(p for p in message.parts if not isinstance(p, Text))
                if texts and kept:
                    steers.extend(texts)
                    message = Message("user", kept)
            history.append(message)
        moved = preset(request, system=(*request.preset.system, *steers))
        return replace(moved, history=tuple(history))

    return _follow_ups(outcome, dialect, hoisted_steers)


def review_fork(request: Request, scenario: Scenario, i: int) -> Request:
    """A review fork built with a narrow tool set (one of the parent's tools), and its system
    prompt rebuilt for those tools instead of the parent's rendered one."""
    tools = request.preset.tools[1:2]
    guidance = f"Tools available to this review: {', '.join(t.name for t in tools)}."
    return preset(request, tools=tools, system=(*request.preset.system, guidance))


FORCED_EFFORT = "medium"
"""The effort a fork sends when it cannot read its parent's: the runtime's default level."""


def effort_forced(request: Request, scenario: Scenario, i: int) -> Request:
    """The fork sends the runtime's default effort instead of the parent's level (Anthropic
    adaptive thinking carries it in ``output_config``; the neutral effort renders elsewhere)."""
    settings = request.preset.settings
    thinking = settings.thinking or ThinkingConfig()
    settings = replace(settings, thinking=replace(thinking, effort=FORCED_EFFORT))
    return preset(
        request,
        settings=settings.with_extra("anthropic", {"output_config": {"effort": FORCED_EFFORT}}),
    )


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
