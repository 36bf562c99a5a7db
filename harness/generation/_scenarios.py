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
from functools import cache, lru_cache

from hypothesis import strategies as st

from ..model import FrozenDict, FunctionCall, FunctionResponse, Message, Preset, Text, Tool, freeze
from ..scenarios import ACTIONS, Action, Continuation, FollowUp, Scenario
from ._checks import check_flag, check_sizes
from ._depth import long_turns
from ._histories import ENDINGS, Ending, draw_history
from ._json import JsonSource, json_blobs, pools
from ._model import draw_preset
from ._sources import Dice, between, texts
from ._text import any_texts, draw_phrase, phrases

__all__ = [
    "FORK_TOOL",
    "RESERVED_TOOL_NAMES",
    "call_response_pairs",
    "continuable_scenarios",
    "fork_scenarios",
    "scenarios",
    "sibling_scenarios",
    "spawn_scenarios",
]

FORK_TOOL = Tool(
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
RESERVED_TOOL_NAMES = frozenset({FORK_TOOL.name, _SPAWN_TOOL.name, _SEND_MESSAGE})
"""Names the strategies declare themselves; drawn tools never take them."""


_phrases = phrases(False)
"""Non-blank text: directives, tasks, prompts must say something (a short one may span
lines: task-after-prefix finds it standing alone across them)."""


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
            check_flag(name, option, getattr(self, option))
        return self


@dataclass(frozen=True)
class _Drawn:
    """An ``_Extent`` with every option decided, and the turn bounds of the history."""

    min_turns: int
    max_turns: int
    unicode_heavy: bool
    large_schemas: bool
    ending: Ending

    def phrase(self, draw: st.DrawFn) -> str:
        """A non-blank text, unicode-heavy when the scenario is."""
        return draw_phrase(draw, self.unicode_heavy)


_DECISIONS = 3 * 8 * 4 * 4
"""A scenario's ending (units of three: model, model_calls, user), then long histories (of
eight: 7), unicode-heavy text and large schemas (of four: 3): one draw."""


def _now_and_then(value: bool | None, digit: int, odds: int) -> bool:
    return value if value is not None else digit % odds == odds - 1


def _decide(draw: st.DrawFn, extent: _Extent, max_turns: int, ending: Ending | None) -> _Drawn:
    code, end = divmod(draw(between(0, _DECISIONS - 1)), 3)
    long = _now_and_then(extent.long, code, 8)
    heavy = _now_and_then(extent.unicode_heavy, code // 8, 4)
    large = _now_and_then(extent.large_schemas, code // 32, 4)
    low, high = long_turns() if long else (1, max_turns)
    return _Drawn(low, max(low, high), heavy, large, ending or ENDINGS[end])


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
    check_sizes("call_response_pairs", min_calls, max_calls, low="min_calls", high="max_calls")
    return _pairs(tuple(tool_names), min_calls, max_calls, id_prefix)


@st.composite
def _pairs(
    draw: st.DrawFn, names: tuple[str, ...], min_calls: int, max_calls: int, prefix: str
) -> tuple[Message, Message]:
    shape = draw(_pair_shapes(len(names), min_calls, max_calls))
    return _pair(draw, names, min_calls, max_calls, shape, prefix)


@lru_cache(maxsize=256)
def _pair_shapes(
    tools: int, min_calls: int, max_calls: int, kinds: int = 1
) -> st.SearchStrategy[int]:
    """A pair's shape, one number: ``kinds`` (units, for the caller), how many calls beyond
    ``min_calls`` (then of ``max_calls - min_calls + 1``), a lead text or not (of two), and
    the tool of each call."""
    return between(0, kinds * (max_calls - min_calls + 1) * 2 * tools**max_calls - 1)


def _pair(
    draw: st.DrawFn,
    names: tuple[str, ...],
    min_calls: int,
    max_calls: int,
    shape: int,
    prefix: str,
) -> tuple[Message, Message]:
    """The pair a drawn ``shape`` stands for (its kind already taken off)."""
    shape, extra = divmod(shape, max_calls - min_calls + 1)
    shape, lead = divmod(shape, 2)
    count = min_calls + extra
    source = JsonSource(draw(json_blobs(2 * count)), draw(pools()))  # the calls, then answers
    calls = []
    for i in range(count):
        shape, tool = divmod(shape, len(names))
        calls.append(FunctionCall(names[tool], source.obj(), f"{prefix}_{i}"))
    text = (Text(draw_phrase(draw, False)),) if lead else ()
    answers = tuple(FunctionResponse(c.name, source.obj(), c.id) for c in calls)
    return Message("model", (*text, *calls)), Message("user", answers)


def _preset(draw: st.DrawFn, max_tools: int, reserved: Tool | None, drawn_as: _Drawn) -> Preset:
    """A preset with at least one ordinary tool, and ``reserved`` declared last."""
    drawn = draw_preset(draw, 1, max_tools, 2, drawn_as.large_schemas, drawn_as.unicode_heavy)
    ordinary = tuple(t for t in drawn.tools if t.name not in RESERVED_TOOL_NAMES)
    if not ordinary:  # every drawn tool took a reserved name (rare): one ordinary tool instead
        ordinary = (replace(drawn.tools[0], name=f"{drawn.tools[0].name}_tool"),)
    tools = (*ordinary, reserved) if reserved is not None else ordinary
    return Preset(drawn.system, tools, drawn.settings)


def _names(preset: Preset) -> tuple[str, ...]:
    """The ordinary tools, which the drawn history calls."""
    return tuple(t.name for t in preset.tools if t.name not in RESERVED_TOOL_NAMES)


_SUFFIXES = 36**8
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _suffix(draw: st.DrawFn) -> str:
    """A scenario id's suffix, ``[a-z0-9]{1,8}`` from one integer: ``"0"`` first."""
    code = draw(between(0, _SUFFIXES - 1))
    out = _DIGITS[code % 36]
    while code >= 36:
        code //= 36
        out = _DIGITS[code % 36] + out
    return out


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
    check_sizes(
        "sibling_scenarios", min_siblings, max_siblings, low="min_siblings", high="max_siblings"
    )
    _check_ending("sibling_scenarios", ending)
    _check_turns("sibling_scenarios", max_turns, max_tools)
    extent = _Extent(long, unicode_heavy, large_schemas).check("sibling_scenarios")
    return _forks("siblings", ending, min_siblings, max_siblings, max_turns, max_tools, extent)


def _draw_forks(
    draw: st.DrawFn,
    action: Action,
    ending: Ending | None,
    min_n: int,
    max_n: int,
    max_turns: int,
    max_tools: int,
    extent: _Extent,
) -> Scenario:
    drawn = _decide(draw, extent, max_turns, ending)
    end = drawn.ending
    preset = _preset(draw, max_tools, FORK_TOOL, drawn)
    history = _history(draw, drawn, _names(preset), end)
    # how many directives (units of two: whether the fork calls keep the other calls)
    count, keep = divmod(draw(between(0, 2 * (max_n - min_n + 1) - 1)), 2)
    directives = tuple(drawn.phrase(draw) for _ in range(min_n + count))
    if end == "model_calls":
        last = history[-1]
        parts = tuple(p for p in last.parts if keep or not isinstance(p, FunctionCall))
        forks = tuple(
            FunctionCall(FORK_TOOL.name, FrozenDict({"directive": d}), f"fork_{i}")
            for i, d in enumerate(directives)
        )
        history = (*history[:-1], Message("model", (*parts, *forks)))
    return Scenario(f"{action}-{_suffix(draw)}", action, preset, history, directives)


_forks = st.composite(_draw_forks)


def _history(
    draw: st.DrawFn, drawn: _Drawn, names: tuple[str, ...], ending: Ending
) -> tuple[Message, ...]:
    return draw_history(draw, names, ending, drawn.min_turns, drawn.max_turns, drawn.unicode_heavy)


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
    check_flag("continuable_scenarios", "cold_resume", cold_resume)
    check_flag("continuable_scenarios", "structured_output", structured_output)
    if min_follow_ups < 0:
        raise ValueError(
            f"continuable_scenarios: min_follow_ups={min_follow_ups} must be at least 0"
        )
    check_sizes(
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


def _draw_continuables(
    draw: st.DrawFn,
    cold_resume: bool | None,
    structured_output: bool | None,
    min_follow_ups: int,
    max_follow_ups: int,
    max_turns: int,
    max_tools: int,
    extent: _Extent,
) -> Scenario:
    drawn = _decide(draw, extent, max_turns, None)
    preset = _preset(draw, max_tools, None, drawn)
    names = _names(preset)
    history = _history(draw, drawn, names, drawn.ending)
    follow_ups_beyond, options = divmod(
        draw(between(0, _OPTIONS * (max_follow_ups - min_follow_ups + 1) - 1)), _OPTIONS
    )
    tool_filter: tuple[str, ...] | None = None
    persona: tuple[str, ...] | None = None
    output_tool: Tool | None = None
    section: str | None = None
    if cold_resume if cold_resume is not None else options % 2:
        restored = options // 2 % 3  # the tool filter, the persona or both
        if restored != 1:
            tool_filter = _tool_filter(draw, (*names, _SEND_MESSAGE))
        if restored != 0:
            persona = tuple(drawn.phrase(draw) for _ in range(draw(between(1, 2))))
    if structured_output if structured_output is not None else options >= 6:
        name = "submit_result"
        while name in names:
            name += "_"
        output_tool = Tool(name, drawn.phrase(draw), freeze({"type": "object"}))
        section = drawn.phrase(draw)
    follow_ups = []
    shapes = _pair_shapes(len(names), 1, 3, kinds=2)
    for j in range(min_follow_ups + follow_ups_beyond):
        shape, exchange = divmod(draw(shapes), 2)  # calls and their results, or texts
        if exchange:
            reply, message = _pair(draw, names, 1, 3, shape, f"child_{j}")
        else:
            reply = Message("model", (Text(drawn.phrase(draw)),))
            message = Message("user", (Text(drawn.phrase(draw)),))
        follow_ups.append(FollowUp(reply, message))
    continuation = Continuation(
        task=drawn.phrase(draw),
        parent_id=draw(texts(1, 12)),
        tool_filter=tool_filter,
        persona=persona,
        output_tool=output_tool,
        output_section=section,
        follow_ups=tuple(follow_ups),
    )
    scenario_id = f"continuable-{_suffix(draw)}"
    return Scenario(scenario_id, "continuable", preset, history, continuation=continuation)


_continuables = st.composite(_draw_continuables)


_OPTIONS = 12
"""A continuable fork's options: a cold resume (units of two), what it restores (then of
three: the tool filter, the persona, both), a structured output (six and up); then how many
follow-ups beyond the least, in the same draw."""


@cache
def _filter_codes(visible: int) -> st.SearchStrategy[int]:
    return between(0, 2 ** (visible + 16) - 1)


def _tool_filter(draw: st.DrawFn, visible: tuple[str, ...]) -> tuple[str, ...]:
    """A restored tool filter: the names a drawn mask picks, in an order its high bits shuffle
    (none, in declared order, first)."""
    code = draw(_filter_codes(len(visible)))
    mask = code & (2 ** len(visible) - 1)
    chosen = [n for i, n in enumerate(visible) if mask >> i & 1]
    return tuple(Dice(code >> len(visible)).shuffled(chosen))


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


def _draw_spawns(draw: st.DrawFn, max_turns: int, max_tools: int, extent: _Extent) -> Scenario:
    drawn = _decide(draw, extent, max_turns, "model_calls")
    preset = _preset(draw, max_tools, _SPAWN_TOOL, drawn)
    history = _history(draw, drawn, _names(preset), "model_calls")
    prompt = drawn.phrase(draw)
    kept = tuple(p for p in history[-1].parts if not isinstance(p, FunctionCall))
    call = FunctionCall(_SPAWN_TOOL.name, FrozenDict({"prompt": prompt}), "spawn_0")
    return Scenario(
        f"spawn-{_suffix(draw)}",
        "spawn",
        preset,
        (*history[:-1], Message("model", (*kept, call))),
        fork_tool=_SPAWN_TOOL.name,
        prompt=prompt,
        answer=draw(any_texts()),
    )


_spawns = st.composite(_draw_spawns)


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


_Variant = tuple[Callable[..., Scenario], tuple[object, ...]]


@lru_cache(maxsize=64)
def _mix(actions: tuple[Action, ...], extent: _Extent) -> st.SearchStrategy[Scenario]:
    return st.composite(_draw_mix)(_variants(actions, extent))


def _variants(actions: tuple[Action, ...], extent: _Extent) -> tuple[_Variant, ...]:
    """The draw functions of ``actions``' strategies and their arguments: each strategy's
    defaults (continuable forks twice: also with one to three follow-ups)."""
    variants: dict[str, list[_Variant]] = {
        "fork": [(_draw_forks, ("fork", None, 1, 1, 4, 3, extent))],
        "siblings": [(_draw_forks, ("siblings", None, 2, 4, 4, 3, extent))],
        "continuable": [
            (_draw_continuables, (None, None, 0, 2, 4, 3, extent)),
            (_draw_continuables, (None, None, 1, 3, 4, 3, extent)),
        ],
        "spawn": [(_draw_spawns, (4, 3, extent))],
    }
    return tuple(v for a in actions for v in variants[a])


def _draw_mix(draw: st.DrawFn, variants: tuple[_Variant, ...]) -> Scenario:
    """One of ``variants`` (each action's strategy with its defaults), the first first: one
    draw, then the variant's own draws."""
    function, args = variants[draw(between(0, len(variants) - 1))]
    return function(draw, *args)
