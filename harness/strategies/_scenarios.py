"""Hypothesis strategies for scenarios: forks, siblings, continuable forks and spawns.

Each draws a scenario the reference subject can run, in the same shapes as the fixture
corpus: the fork tool is declared, calls go to declared tools, every call but the fork's is
answered. Options are keyword-only and checked when the strategy is built. Simple choices
come first (fewest siblings, no extra calls, no overrides), so failures shrink to small,
readable scenarios.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from hypothesis import strategies as st

from ..model import FrozenDict, FunctionCall, FunctionResponse, Message, Preset, Text, Tool, freeze
from ..scenarios import ACTIONS, Action, Continuation, FollowUp, Scenario
from ._depth import long_turns
from ._model import (
    ENDINGS,
    Ending,
    TextStrategy,
    _check_flag,
    _check_sizes,
    histories,
    json_objects,
    presets,
    unicode_texts,
)

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


def _non_blank(text: st.SearchStrategy[str], visible: st.SearchStrategy[str]) -> TextStrategy:
    """``text`` with a character of ``visible`` put in at a drawn place (whitespace drawn
    there becomes ``"0"``): non-blank as drawn, never filtered, and shrinking to ``"0"``."""
    return st.tuples(text, visible, st.integers(0, 40)).map(_insert)


def _insert(drawn: tuple[str, str, int]) -> str:
    text, char, at = drawn
    return text[:at] + ("0" if char.isspace() else char) + text[at:]


_phrases = _non_blank(st.text(max_size=39), st.characters(codec="utf-8"))
"""Non-blank text: directives, tasks, prompts must say something (a short one may span
lines: task-after-prefix finds it standing alone across them)."""
_unicode_phrases = _non_blank(
    unicode_texts(min_size=0, max_size=39), st.sampled_from(["0", "a", "Ω", "漢", "\U0001f600"])
)


@dataclass(frozen=True)
class _Extent:
    """The options every scenario strategy takes beyond its own: long histories, unicode-heavy
    text, large tool schemas. True forces one, False rules it out, None draws it now and then
    (long histories one time in eight, the others one time in four), False first."""

    long: bool | None = False
    unicode_heavy: bool | None = False
    large_schemas: bool | None = False

    def check(self, name: str) -> _Extent:
        for option in ("long", "unicode_heavy", "large_schemas"):
            _check_flag(name, option, getattr(self, option))
        return self


@dataclass(frozen=True)
class _Drawn:
    """An ``_Extent`` with every option decided, and the turn bounds of the history."""

    min_turns: int
    max_turns: int
    unicode_heavy: bool
    large_schemas: bool

    @property
    def phrases(self) -> st.SearchStrategy[str]:
        return _unicode_phrases if self.unicode_heavy else _phrases


def _now_and_then(draw: st.DrawFn, value: bool | None, odds: int) -> bool:
    if value is not None:
        return value
    return draw(st.integers(0, odds - 1)) == odds - 1


def _decide(draw: st.DrawFn, extent: _Extent, max_turns: int) -> _Drawn:
    long = _now_and_then(draw, extent.long, 8)
    heavy = _now_and_then(draw, extent.unicode_heavy, 4)
    large = _now_and_then(draw, extent.large_schemas, 4)
    low, high = long_turns() if long else (1, max_turns)
    return _Drawn(low, max(low, high), heavy, large)


def _check_ending(name: str, ending: Ending | None) -> None:
    if ending is not None and ending not in ENDINGS:
        raise ValueError(f"{name}: ending={ending!r} is not one of {ENDINGS}")


def _check_turns(name: str, max_turns: int, max_tools: int) -> None:
    for option, value in (("max_turns", max_turns), ("max_tools", max_tools)):
        if value < 1:
            raise ValueError(f"{name}: {option}={value} must be at least 1")


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
    _check_sizes("call_response_pairs", min_calls, max_calls, low="min_calls", high="max_calls")
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
def _preset(draw: st.DrawFn, max_tools: int, reserved: Tool | None, drawn_as: _Drawn) -> Preset:
    """A preset with at least one ordinary tool, and ``reserved`` declared last."""
    drawn = draw(
        presets(
            min_tools=1,
            max_tools=max_tools,
            large_schemas=drawn_as.large_schemas,
            unicode_heavy=drawn_as.unicode_heavy,
        )
    )
    ordinary = tuple(t for t in drawn.tools if t.name not in _RESERVED)
    if not ordinary:  # every drawn tool took a reserved name (rare): one ordinary tool instead
        ordinary = (replace(drawn.tools[0], name=f"{drawn.tools[0].name}_tool"),)
    tools = (*ordinary, reserved) if reserved is not None else ordinary
    return Preset(drawn.system, tools, drawn.settings)


def _names(preset: Preset) -> tuple[str, ...]:
    """The ordinary tools, which the drawn history calls."""
    return tuple(t.name for t in preset.tools if t.name not in _RESERVED)


_suffixes = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)


_EXTENT_DOC = """

    ``long`` draws a history of 100 to 150 turns (200 to 300 messages; the upper bound times
    ``PREFIX_HARNESS_DEPTH``) instead of up to ``max_turns``; ``unicode_heavy`` writes texts and
    system blocks with ``unicode_texts``; ``large_schemas`` gives the drawn tools deep and wide
    JSON Schemas. True forces an option, False (default) rules it out, None draws it now and then.
    """


def fork_scenarios(
    *,
    ending: Ending | None = None,
    max_turns: int = 4,
    max_tools: int = 3,
    long: bool | None = False,
    unicode_heavy: bool | None = False,
    large_schemas: bool | None = False,
) -> st.SearchStrategy[Scenario]:
    """One-shot forks from a parent history ending as ``ending`` (any of the three when None).

    With ``"model_calls"`` the last message calls the fork tool, alone or beside other calls.
    """
    _check_ending("fork_scenarios", ending)
    _check_turns("fork_scenarios", max_turns, max_tools)
    extent = _Extent(long, unicode_heavy, large_schemas).check("fork_scenarios")
    return _forks("fork", ending, 1, 1, max_turns, max_tools, extent)


def sibling_scenarios(
    *,
    min_siblings: int = 2,
    max_siblings: int = 4,
    ending: Ending | None = None,
    max_turns: int = 4,
    max_tools: int = 3,
    long: bool | None = False,
    unicode_heavy: bool | None = False,
    large_schemas: bool | None = False,
) -> st.SearchStrategy[Scenario]:
    """Sibling forks from one parent message, one directive (and fork call) per sibling."""
    if min_siblings < 2:
        raise ValueError(f"sibling_scenarios: min_siblings={min_siblings} must be at least 2")
    _check_sizes(
        "sibling_scenarios", min_siblings, max_siblings, low="min_siblings", high="max_siblings"
    )
    _check_ending("sibling_scenarios", ending)
    _check_turns("sibling_scenarios", max_turns, max_tools)
    extent = _Extent(long, unicode_heavy, large_schemas).check("sibling_scenarios")
    return _forks("siblings", ending, min_siblings, max_siblings, max_turns, max_tools, extent)


@st.composite
def _forks(
    draw: st.DrawFn,
    action: Action,
    ending: Ending | None,
    min_n: int,
    max_n: int,
    max_turns: int,
    max_tools: int,
    extent: _Extent,
) -> Scenario:
    end = ending or draw(st.sampled_from(ENDINGS))
    drawn = _decide(draw, extent, max_turns)
    preset = draw(_preset(max_tools, _FORK_TOOL, drawn))
    history = draw(_history(drawn, _names(preset), end))
    directives = tuple(draw(drawn.phrases) for _ in range(draw(st.integers(min_n, max_n))))
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


def _history(
    drawn: _Drawn, names: tuple[str, ...], ending: Ending | None
) -> st.SearchStrategy[tuple[Message, ...]]:
    return histories(
        tool_names=names,
        ending=ending,
        min_turns=drawn.min_turns,
        max_turns=drawn.max_turns,
        unicode_heavy=drawn.unicode_heavy,
    )


def continuable_scenarios(
    *,
    cold_resume: bool | None = None,
    structured_output: bool | None = None,
    min_follow_ups: int = 0,
    max_follow_ups: int = 2,
    max_turns: int = 4,
    max_tools: int = 3,
    long: bool | None = False,
    unicode_heavy: bool | None = False,
    large_schemas: bool | None = False,
) -> st.SearchStrategy[Scenario]:
    """Continuable forks: a task and a parent id; with ``cold_resume`` a restored tool filter
    and/or persona, with ``structured_output`` a child-only output tool and section, and
    ``min_follow_ups`` to ``max_follow_ups`` later exchanges of the child (a reply, with calls
    or not, and the next user turn). For these two, True forces an option, False rules it out,
    None (default) draws either."""
    _check_flag("continuable_scenarios", "cold_resume", cold_resume)
    _check_flag("continuable_scenarios", "structured_output", structured_output)
    if min_follow_ups < 0:
        raise ValueError(
            f"continuable_scenarios: min_follow_ups={min_follow_ups} must be at least 0"
        )
    _check_sizes(
        "continuable_scenarios",
        min_follow_ups,
        max_follow_ups,
        low="min_follow_ups",
        high="max_follow_ups",
    )
    _check_turns("continuable_scenarios", max_turns, max_tools)
    extent = _Extent(long, unicode_heavy, large_schemas).check("continuable_scenarios")
    return _continuables(
        cold_resume, structured_output, min_follow_ups, max_follow_ups, max_turns, max_tools, extent
    )


@st.composite
def _continuables(
    draw: st.DrawFn,
    cold_resume: bool | None,
    structured_output: bool | None,
    min_follow_ups: int,
    max_follow_ups: int,
    max_turns: int,
    max_tools: int,
    extent: _Extent,
) -> Scenario:
    drawn = _decide(draw, extent, max_turns)
    phrases = drawn.phrases
    preset = draw(_preset(max_tools, None, drawn))
    names = _names(preset)
    history = draw(_history(drawn, names, None))
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
            persona = tuple(draw(st.lists(phrases, min_size=1, max_size=2)))
    if structured_output if structured_output is not None else draw(st.booleans()):
        name = "submit_result"
        while name in names:
            name += "_"
        output_tool = Tool(name, draw(phrases), freeze({"type": "object"}))
        section = draw(phrases)
    follow_ups = []
    for j in range(draw(st.integers(min_follow_ups, max_follow_ups))):
        if draw(st.booleans()):
            reply, message = draw(call_response_pairs(tool_names=names, id_prefix=f"child_{j}"))
        else:
            reply = Message("model", (Text(draw(phrases)),))
            message = Message("user", (Text(draw(phrases)),))
        follow_ups.append(FollowUp(reply, message))
    continuation = Continuation(
        task=draw(phrases),
        parent_id=draw(st.text(min_size=1, max_size=12)),
        tool_filter=tool_filter,
        persona=persona,
        output_tool=output_tool,
        output_section=section,
        follow_ups=tuple(follow_ups),
    )
    scenario_id = f"continuable-{draw(_suffixes)}"
    return Scenario(scenario_id, "continuable", preset, history, continuation=continuation)


def spawn_scenarios(
    *,
    max_turns: int = 4,
    max_tools: int = 3,
    long: bool | None = False,
    unicode_heavy: bool | None = False,
    large_schemas: bool | None = False,
) -> st.SearchStrategy[Scenario]:
    """Spawns: the parent's last message calls the ``task`` tool with the delegation prompt."""
    _check_turns("spawn_scenarios", max_turns, max_tools)
    extent = _Extent(long, unicode_heavy, large_schemas).check("spawn_scenarios")
    return _spawns(max_turns, max_tools, extent)


@st.composite
def _spawns(draw: st.DrawFn, max_turns: int, max_tools: int, extent: _Extent) -> Scenario:
    drawn = _decide(draw, extent, max_turns)
    preset = draw(_preset(max_tools, _SPAWN_TOOL, drawn))
    history = draw(_history(drawn, _names(preset), "model_calls"))
    prompt = draw(drawn.phrases)
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


for _strategy in (fork_scenarios, sibling_scenarios, continuable_scenarios, spawn_scenarios):
    _strategy.__doc__ = (_strategy.__doc__ or "").rstrip() + _EXTENT_DOC


def scenarios(
    *,
    actions: Sequence[Action] = ACTIONS,
    long: bool | None = None,
    unicode_heavy: bool | None = None,
    large_schemas: bool | None = None,
) -> st.SearchStrategy[Scenario]:
    """Scenarios of any of ``actions`` (all four by default), each with default options, and
    continuable forks with one to three follow-ups as often as those without.

    ``long``, ``unicode_heavy`` and ``large_schemas`` as for each action's strategy, but drawn
    now and then by default (None): the broad mix reaches long histories, unicode-heavy text and
    large schemas; False rules one out, True forces it.
    """
    if isinstance(actions, str) or not actions or any(a not in ACTIONS for a in actions):
        raise ValueError(f"scenarios: actions={actions!r} must be a non-empty subset of {ACTIONS}")
    extent = _Extent(long, unicode_heavy, large_schemas).check("scenarios")
    return _mix(tuple(dict.fromkeys(actions)), extent)


@lru_cache(maxsize=64)
def _mix(actions: tuple[Action, ...], extent: _Extent) -> st.SearchStrategy[Scenario]:
    long, heavy, large = extent.long, extent.unicode_heavy, extent.large_schemas
    build: dict[str, Callable[[], st.SearchStrategy[Scenario]]] = {
        "fork": lambda: fork_scenarios(long=long, unicode_heavy=heavy, large_schemas=large),
        "siblings": lambda: sibling_scenarios(long=long, unicode_heavy=heavy, large_schemas=large),
        "continuable": lambda: st.one_of(
            continuable_scenarios(long=long, unicode_heavy=heavy, large_schemas=large),
            continuable_scenarios(
                min_follow_ups=1,
                max_follow_ups=3,
                long=long,
                unicode_heavy=heavy,
                large_schemas=large,
            ),
        ),
        "spawn": lambda: spawn_scenarios(long=long, unicode_heavy=heavy, large_schemas=large),
    }
    return st.one_of([build[a]() for a in actions])
