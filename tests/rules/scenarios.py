"""Hand-built scenarios for the rule tests: every action, every history ending, every override.

The parent's history carries what the regression classes need to show: thinking with a
signature, an image, call/response pairs with object arguments, a plain first user message
(a string in dialects that have a string form), two system blocks and three ordered tools.
"""

from __future__ import annotations

from dataclasses import replace

from harness.assemblers import DEFAULT_WORDING
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Preset,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
)
from harness.scenarios import Continuation, FollowUp, Scenario

__all__ = ["BY_ID", "PARENT_ID", "PRESET", "SCENARIOS"]

_OBJECT = {"type": "object"}
PRESET = Preset(
    system=("You are a careful coding agent.", "Project notes: the parser lives in parser.py."),
    tools=(
        Tool(
            "search",
            "Search the repository.",
            freeze({**_OBJECT, "properties": {"q": {"type": "string"}}, "required": ["q"]}),
        ),
        Tool(
            "read_file",
            "Read one file.",
            freeze({**_OBJECT, "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        ),
        Tool(
            "agent",
            "Start a worker with a directive.",
            freeze({**_OBJECT, "properties": {"directive": {"type": "string"}}}),
        ),
    ),
    settings=Settings(
        model="model-large",
        temperature=0.2,
        max_output_tokens=4096,
        thinking=ThinkingConfig(mode="enabled", budget_tokens=4096, effort="high"),
        tool_choice=ToolChoice("auto"),
    ),
)
PARENT_ID = "agent-7f3"

_ASK = Message("user", (Text("The parser test fails. Find out why and fix it."),))
_READ = Message(
    "model",
    (
        Thinking("The failure mentions the last token; read the parser.", signature="sig-1"),
        Text("I'll read the parser first."),
        FunctionCall("read_file", freeze({"path": "parser.py", "lines": [1, 80]}), id="call_1"),
    ),
)
_SHOWN = Message(
    "user",
    (
        FunctionResponse("read_file", freeze({"content": "def parse(tokens): ..."}), id="call_1"),
        Image(mime_type="image/png", data="iVBORw0KGgoAAAANSUhEUg=="),
    ),
)
_BASE = (_ASK, _READ, _SHOWN)


def _forking(*calls: tuple[str, str]) -> Message:
    """The model's message that calls the fork tool once per (call id, directive)."""
    return Message(
        "model",
        (
            Text("The tokenizer drops the last token. I'll hand the work to workers."),
            *(FunctionCall("agent", freeze({"directive": d}), id=i) for i, d in calls),
        ),
    )


_DONE = Message("model", (Text("The tokenizer now keeps the last token; the test passes."),))
_MORE = Message("user", (Text("Good. Also make sure the docs mention the change."),))


def _fork(id_: str, history: tuple[Message, ...], directive: str, **kw: object) -> Scenario:
    return Scenario(id_, "fork", PRESET, history, directives=(directive,), **kw)  # type: ignore[arg-type]


def _continuable(id_: str, **kw: object) -> Scenario:
    task = "Port the tokenizer fix to the CLI and report back."
    return Scenario(
        id_,
        "continuable",
        PRESET,
        (*_BASE, _DONE, _MORE),
        continuation=Continuation(task=task, parent_id=PARENT_ID, **kw),  # type: ignore[arg-type]
    )


_REPORT = Tool(
    "report",
    "Return the structured result.",
    freeze({**_OBJECT, "properties": {"summary": {"type": "string"}}}),
)
_FOLLOW_UPS = (
    FollowUp(
        Message(
            "model",
            (
                Text("Searching the CLI."),
                FunctionCall("search", freeze({"q": "tokenize"}), id="f1"),
            ),
        ),
        Message("user", (FunctionResponse("search", "cli.py:12", id="f1"),)),
    ),
    FollowUp(
        Message("model", (Text("Found the call site."),)),
        Message("user", (Text("Now run the CLI tests."),)),
    ),
)

_STEERED = (
    FollowUp(
        Message(
            "model",
            (
                Text("Searching the CLI."),
                FunctionCall("search", freeze({"q": "tokenize"}), id="f1"),
            ),
        ),
        Message(
            "user",
            (
                FunctionResponse("search", "cli.py:12", id="f1"),
                Text("(while you were working) Keep the old --tokens flag working."),
            ),
        ),
    ),
    FollowUp(
        Message("model", (Text("Found the call site; the flag stays."),)),
        Message("user", (Text("Now run the CLI tests."),)),
    ),
)
"""A continuing child's turns where the user steers while a tool runs: the message arrives
with the tool's result."""

_EFFORT = replace(
    PRESET,
    settings=replace(
        PRESET.settings, thinking=ThinkingConfig(mode="adaptive", effort="high")
    ).with_extra("anthropic", {"output_config": {"effort": "high"}}),
)
"""Adaptive thinking at the parent's own effort (Anthropic sends it in ``output_config``)."""

SCENARIOS: tuple[Scenario, ...] = (
    _fork(
        "fork-model-calls",
        (*_BASE, _forking(("call_2", "Fix the tokenizer."))),
        "Fix the tokenizer.",
    ),
    _fork("fork-model", (*_BASE, _DONE), "Write a regression test for the tokenizer."),
    Scenario(
        "fork-effort",
        "fork",
        _EFFORT,
        (*_BASE, _forking(("call_2", "Fix the tokenizer."))),
        directives=("Fix the tokenizer.",),
    ),
    Scenario(
        "fork-cache-key",
        "fork",
        replace(
            PRESET,
            settings=PRESET.settings.with_extra(
                "openai", {"prompt_cache_key": "session-7f3"}
            ).with_extra("openai-responses", {"prompt_cache_key": "session-7f3"}),
        ),
        (*_BASE, _forking(("call_2", "Fix the tokenizer."))),
        directives=("Fix the tokenizer.",),
    ),
    _fork("fork-user", (*_BASE, _DONE, _MORE), "Update the docs for the tokenizer fix."),
    Scenario(
        "siblings",
        "siblings",
        PRESET,
        (*_BASE, _forking(("call_a", "Research option A."), ("call_b", "Research option B."))),
        directives=("Research option A.", "Research option B."),
    ),
    _fork(
        "degraded",
        (_ASK,),
        "List the files of the parser package.",
        snapshot=False,
        default_tools=PRESET.tools[:2],
    ),
    _fork(
        "recursive",
        (
            Message("user", (Text(DEFAULT_WORDING.child_message("Fix the tokenizer.")),)),
            _forking(("call_r", "Split the work further.")),
        ),
        "Split the work further.",
        known_fork_child=True,
    ),
    _continuable("continuable"),
    _continuable("continuable-filtered", tool_filter=("search", "read_file")),
    _continuable("continuable-persona", persona=("You are the documentation specialist.",)),
    _continuable(
        "continuable-structured",
        output_tool=_REPORT,
        output_section="Answer by calling report exactly once.",
    ),
    _continuable("continuable-follow-ups", follow_ups=_FOLLOW_UPS),
    _continuable("continuable-steered", follow_ups=_STEERED),
    Scenario(
        "spawn",
        "spawn",
        PRESET,
        (
            _ASK,
            Message("model", (FunctionCall("agent", freeze({"prompt": "Find it"}), id="call_s"),)),
        ),
        prompt="Search parser.py for where the last token is dropped; answer with the line.",
        answer="Line 42 drops it.",
    ),
)

BY_ID = {s.id: s for s in SCENARIOS}
