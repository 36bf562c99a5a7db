"""Hypothesis strategies for scenarios: forks, siblings, continuable forks and spawns.

Each draws a scenario the reference subject can run, in the same shapes as the fixture
corpus: the fork tool is declared, calls go to declared tools, every call but the fork's is
answered. Options are keyword-only and checked when the strategy is built. Simple choices
come first (fewest siblings, no extra calls, no overrides), so failures shrink to small,
readable scenarios.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import assume
from hypothesis import strategies as st

from ..model import FrozenDict, FunctionCall, FunctionResponse, Message, Preset, Text, Tool, freeze
from ..scenarios import ACTIONS, Action, Continuation, FollowUp, Scenario
from ._model import ENDINGS, Ending, _check_sizes, histories, json_objects, presets

__all__ = [
    "call_response_pairs",
    "continuable_scenarios",
    "fork_scenarios",
    "scenarios",
    "sibling_scenarios",
    "spawn_scenarios",
]

_FORK_TOOL = Tool(
    "agent",
    "Fork a worker that inherits this conversation and carries out one directive.",
    freeze(
        {
            "type": "object",
            "properties": {"directive": {"type": "string"}},
            "required": ["directive"],
        }
    ),
)
_SPAWN_TOOL = Tool(
    "task",
    "Start a sub-agent with a fresh context; it sees only the prompt.",
    freeze(
        {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}
    ),
)
_SEND_MESSAGE = "send_message"
_RESERVED = frozenset({_FORK_TOOL.name, _SPAWN_TOOL.name, _SEND_MESSAGE})
"""Names the strategies declare themselves; drawn tools never take them."""
_phrases = st.text(min_size=1, max_size=40).filter(str.strip)
"""Non-blank text: directives, tasks, prompts must say something."""


def _check_ending(name: str, ending: Ending | None) -> None:
    if ending is not None and ending not in ENDINGS:
        raise ValueError(f"{name}: ending={ending!r} is not one of {ENDINGS}")


def _check_turns(name: str, max_turns: int, max_tools: int) -> None:
    for option, value in (("max_turns", max_turns), ("max_tools", max_tools)):
        if value < 1:
            raise ValueError(f"{name}: {option}={value} must be at least 1")


def _check_flag(name: str, option: str, value: object) -> None:
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{name}: {option}={value!r} must be True, False or None (either)")


def call_response_pairs(
    *,
    tool_names: Sequence[str] = ("search", "read_file"),
    min_calls: int = 1,
    max_calls: int = 3,
    id_prefix: str = "call",
) -> st.SearchStrategy[tuple[Message, Message]]:
    """A model message making ``min_calls``..``max_calls`` parallel calls, and the user message
    answering each, in order, with the same id (``<id_prefix>_<i>``) and name."""
    if isinstance(tool_names, str) or not tool_names or not all(tool_names):
        raise ValueError(f"call_response_pairs: tool_names={tool_names!r} needs non-empty names")
    if min_calls < 1:
        raise ValueError(f"call_response_pairs: min_calls={min_calls} must be at least 1")
    _check_sizes("call_response_pairs", min_calls, max_calls)
    return _pairs(tuple(tool_names), min_calls, max_calls, id_prefix)


@st.composite
def _pairs(
    draw: st.DrawFn, names: tuple[str, ...], min_calls: int, max_calls: int, prefix: str
) -> tuple[Message, Message]:
    count = draw(st.integers(min_calls, max_calls))
    calls = [
        FunctionCall(draw(st.sampled_from(names)), draw(json_objects()), f"{prefix}_{i}")
        for i in range(count)
    ]
    lead = [Text(draw(_phrases))] if draw(st.booleans()) else []
    answers = tuple(FunctionResponse(c.name, draw(json_objects()), c.id) for c in calls)
    return Message("model", (*lead, *calls)), Message("user", answers)


@st.composite
def _preset(draw: st.DrawFn, max_tools: int, reserved: Tool | None) -> Preset:
    """A preset with at least one ordinary tool, and ``reserved`` declared last."""
    drawn = draw(presets(min_tools=1, max_tools=max_tools))
    ordinary = tuple(t for t in drawn.tools if t.name not in _RESERVED)
    assume(ordinary)
    tools = (*ordinary, reserved) if reserved is not None else ordinary
    return Preset(drawn.system, tools, drawn.settings)


def _names(preset: Preset) -> tuple[str, ...]:
    """The ordinary tools, which the drawn history calls."""
    return tuple(t.name for t in preset.tools if t.name not in _RESERVED)


_suffixes = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)


def fork_scenarios(
    *, ending: Ending | None = None, max_turns: int = 4, max_tools: int = 3
) -> st.SearchStrategy[Scenario]:
    """One-shot forks from a parent history ending as ``ending`` (any of the three when None).

    With ``"model_calls"`` the last message calls the fork tool, alone or beside other calls.
    """
    _check_ending("fork_scenarios", ending)
    _check_turns("fork_scenarios", max_turns, max_tools)
    return _forks("fork", ending, 1, 1, max_turns, max_tools)


def sibling_scenarios(
    *,
    min_siblings: int = 2,
    max_siblings: int = 4,
    ending: Ending | None = None,
    max_turns: int = 4,
    max_tools: int = 3,
) -> st.SearchStrategy[Scenario]:
    """Sibling forks from one parent message, one directive (and fork call) per sibling."""
    if min_siblings < 2:
        raise ValueError(f"sibling_scenarios: min_siblings={min_siblings} must be at least 2")
    _check_sizes("sibling_scenarios", min_siblings, max_siblings)
    _check_ending("sibling_scenarios", ending)
    _check_turns("sibling_scenarios", max_turns, max_tools)
    return _forks("siblings", ending, min_siblings, max_siblings, max_turns, max_tools)


@st.composite
def _forks(
    draw: st.DrawFn,
    action: Action,
    ending: Ending | None,
    min_n: int,
    max_n: int,
    max_turns: int,
    max_tools: int,
) -> Scenario:
    end = ending or draw(st.sampled_from(ENDINGS))
    preset = draw(_preset(max_tools, _FORK_TOOL))
    history = draw(histories(tool_names=_names(preset), ending=end, max_turns=max_turns))
    directives = tuple(draw(_phrases) for _ in range(draw(st.integers(min_n, max_n))))
    if end == "model_calls":
        last = history[-1]
        keep = draw(st.booleans())
        parts = tuple(p for p in last.parts if keep or not isinstance(p, FunctionCall))
        forks = tuple(
            FunctionCall(_FORK_TOOL.name, FrozenDict({"directive": d}), f"fork_{i}")
            for i, d in enumerate(directives)
        )
        history = (*history[:-1], Message("model", (*parts, *forks)))
    return Scenario(f"{action}-{draw(_suffixes)}", action, preset, history, directives)


def continuable_scenarios(
    *,
    cold_resume: bool | None = None,
    structured_output: bool | None = None,
    max_follow_ups: int = 2,
    max_turns: int = 4,
    max_tools: int = 3,
) -> st.SearchStrategy[Scenario]:
    """Continuable forks: a task and a parent id; with ``cold_resume`` a restored tool filter
    and/or persona, with ``structured_output`` a child-only output tool and section, and up
    to ``max_follow_ups`` later exchanges. True forces an option, False rules it out, None
    (default) draws either."""
    _check_flag("continuable_scenarios", "cold_resume", cold_resume)
    _check_flag("continuable_scenarios", "structured_output", structured_output)
    _check_sizes("continuable_scenarios", 0, max_follow_ups)
    _check_turns("continuable_scenarios", max_turns, max_tools)
    return _continuables(cold_resume, structured_output, max_follow_ups, max_turns, max_tools)


@st.composite
def _continuables(
    draw: st.DrawFn,
    cold_resume: bool | None,
    structured_output: bool | None,
    max_follow_ups: int,
    max_turns: int,
    max_tools: int,
) -> Scenario:
    preset = draw(_preset(max_tools, None))
    names = _names(preset)
    history = draw(histories(tool_names=names, max_turns=max_turns))
    tool_filter: tuple[str, ...] | None = None
    persona: tuple[str, ...] | None = None
    output_tool: Tool | None = None
    section: str | None = None
    if cold_resume if cold_resume is not None else draw(st.booleans()):
        restored = draw(st.sampled_from(["tool_filter", "persona", "both"]))
        if restored != "persona":
            visible = st.sampled_from((*names, _SEND_MESSAGE))
            tool_filter = tuple(draw(st.lists(visible, unique=True)))
        if restored != "tool_filter":
            persona = tuple(draw(st.lists(_phrases, min_size=1, max_size=2)))
    if structured_output if structured_output is not None else draw(st.booleans()):
        name = "submit_result"
        while name in names:
            name += "_"
        output_tool = Tool(name, draw(_phrases), freeze({"type": "object"}))
        section = draw(_phrases)
    follow_ups = []
    for j in range(draw(st.integers(0, max_follow_ups))):
        if draw(st.booleans()):
            reply, message = draw(call_response_pairs(tool_names=names, id_prefix=f"child_{j}"))
        else:
            reply = Message("model", (Text(draw(_phrases)),))
            message = Message("user", (Text(draw(_phrases)),))
        follow_ups.append(FollowUp(reply, message))
    continuation = Continuation(
        task=draw(_phrases),
        parent_id=draw(st.text(min_size=1, max_size=12)),
        tool_filter=tool_filter,
        persona=persona,
        output_tool=output_tool,
        output_section=section,
        follow_ups=tuple(follow_ups),
    )
    scenario_id = f"continuable-{draw(_suffixes)}"
    return Scenario(scenario_id, "continuable", preset, history, continuation=continuation)


def spawn_scenarios(*, max_turns: int = 4, max_tools: int = 3) -> st.SearchStrategy[Scenario]:
    """Spawns: the parent's last message calls the ``task`` tool with the delegation prompt."""
    _check_turns("spawn_scenarios", max_turns, max_tools)
    return _spawns(max_turns, max_tools)


@st.composite
def _spawns(draw: st.DrawFn, max_turns: int, max_tools: int) -> Scenario:
    preset = draw(_preset(max_tools, _SPAWN_TOOL))
    history = draw(histories(tool_names=_names(preset), ending="model_calls", max_turns=max_turns))
    prompt = draw(_phrases)
    kept = tuple(p for p in history[-1].parts if not isinstance(p, FunctionCall))
    call = FunctionCall(_SPAWN_TOOL.name, FrozenDict({"prompt": prompt}), "spawn_0")
    return Scenario(
        f"spawn-{draw(_suffixes)}",
        "spawn",
        preset,
        (*history[:-1], Message("model", (*kept, call))),
        fork_tool=_SPAWN_TOOL.name,
        prompt=prompt,
        answer=draw(st.text(max_size=40)),
    )


def scenarios(*, actions: Sequence[Action] = ACTIONS) -> st.SearchStrategy[Scenario]:
    """Scenarios of any of ``actions`` (all four by default), each with default options."""
    if isinstance(actions, str) or not actions or any(a not in ACTIONS for a in actions):
        raise ValueError(f"scenarios: actions={actions!r} must be a non-empty subset of {ACTIONS}")
    build: dict[str, Callable[[], st.SearchStrategy[Scenario]]] = {
        "fork": fork_scenarios,
        "siblings": sibling_scenarios,
        "continuable": continuable_scenarios,
        "spawn": spawn_scenarios,
    }
    return st.one_of([build[a]() for a in dict.fromkeys(actions)])
