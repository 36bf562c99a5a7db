"""A Hypothesis state machine that drives a whole agent session through a subject.

Where the scenario strategies draw one moment of a parent's life, ``SessionMachine`` plays a
session out step by step: user turns, model turns with and without (parallel) calls and their
results, steering messages, one-shot forks (by the runtime or by a fork call of the model),
siblings, continuable children woken again with follow-ups, compaction, a tool list that changes
mid-session (an MCP server reconnecting), and a resume from the stored session. After every step
that yields request bodies it builds the scenario of the session's current state, has the
subject assemble it and checks it:

* every rule of ``harness.rules.evaluate``: no finding may fail;
* the parent's successive requests (the parent body of each outcome) extend each other
  append-only (``harness.rules.evaluate_conversation``), except across a compaction or a tool
  change, after which the prefix legitimately restarts;
* after a tool change, the parent's and the fork's tools are the new list, in its new order;
* a child woken again extends the requests it sent before.

A failure is an ``AssertionError`` holding the rules report and the scenario as fixture JSON;
Hypothesis prints the steps that led there, shrunk. Run it against any subject::

    from harness.strategies import session_machine

    TestMySession = session_machine(MySubject(), "anthropic").TestCase

or subclass ``SessionMachine`` and set ``subject`` and ``dialect``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import orjson
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from ..dialects import all_dialects, get_dialect
from ..generation import FORK_TOOL, RESERVED_TOOL_NAMES, json_objects, phrases, presets
from ..model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Message,
    Part,
    Preset,
    Text,
    Thinking,
    Tool,
)
from ..protocol import Outcome, Subject
from ..reports import rules_text
from ..rules import ScenarioReport, evaluate, evaluate_conversation
from ..scenarios import (
    Continuation,
    FollowUp,
    Scenario,
    history_problems,
    scenario_from_json,
    scenario_to_json,
    with_send_message,
)
from ..subjects import ReferenceSubject

__all__ = ["SessionMachine", "SessionViolation", "session_machine"]

_STARTED = FrozenDict({"status": "started in the background"})
"""What the session's parent receives for a fork call (the subject's own text is not needed)."""
_PHRASES = phrases(False)
"""Non-blank text: what a user, a model or a directive says (``harness.generation.phrases``)."""


class SessionViolation(AssertionError):
    """A step of the session broke a rule; ``str()`` is the report and the scenario."""


@dataclass
class _Child:
    """A continuable child: the scenario it was started from, and what it sent last time."""

    scenario: Scenario
    bodies: tuple[bytes, ...] = ()
    wakes: int = 0


@dataclass
class _Log:
    """The parent's successive request bodies since the prefix last (legitimately) restarted."""

    bodies: list[tuple[str, bytes]] = field(default_factory=list)
    restarts: int = 0


@st.composite
def _session_presets(draw: st.DrawFn) -> Preset:
    """A session's preset: a system instruction, ordinary tools, the fork tool, send_message."""
    drawn = draw(presets(min_tools=1, max_tools=3))
    ordinary = tuple(t for t in drawn.tools if t.name not in RESERVED_TOOL_NAMES)
    if not ordinary:
        ordinary = (Tool("search"),)
    system = drawn.system or ("You are the coordinating agent of this session.",)
    return with_send_message(Preset(system, (*ordinary, FORK_TOOL), drawn.settings))


class SessionMachine(RuleBasedStateMachine):
    """A whole agent session driven through ``subject`` in ``dialect``, checked at every step.

    Set the class attributes ``subject`` (any ``harness.subjects.Subject``; the reference by
    default) and ``dialect`` in a subclass, or use ``session_machine``; run it with
    ``SessionMachine.TestCase`` (a ``unittest.TestCase`` pytest collects) or
    ``hypothesis.stateful.run_state_machine_as_test``.
    """

    subject: ClassVar[Subject] = ReferenceSubject()
    dialect: ClassVar[str] = "openai"

    children = Bundle("children")

    def __init__(self) -> None:
        super().__init__()
        self.preset = Preset()
        self.history: tuple[Message, ...] = ()
        self.log = _Log()
        self.kids: dict[int, _Child] = {}
        self.steps = 0
        self.calls = 0

    # --- the session's state -------------------------------------------------------------------

    @property
    def last(self) -> Message | None:
        return self.history[-1] if self.history else None

    def _open_calls(self) -> tuple[FunctionCall, ...]:
        last = self.last
        return last.function_calls if last is not None and last.role == "model" else ()

    def _ordinary(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.preset.tools if t.name not in RESERVED_TOOL_NAMES)

    def _lifecycle(self, name: str) -> bool:
        return any(name == lifecycle for lifecycle in self.subject.lifecycles)

    def _call_id(self, kind: str) -> str:
        self.calls += 1
        return f"{kind}_{self.calls}"

    # --- checking ------------------------------------------------------------------------------

    def _assemble(self, scenario: Scenario) -> Outcome:
        try:
            return self.subject.assemble(scenario, self.dialect)
        except Exception as e:  # a subject under test may fail in any way: subject-error says so
            return Outcome("errored", message=f"{type(e).__name__}: {e}")

    def _scenario(self, action: str, **fields: Any) -> Scenario:
        self.steps += 1
        return Scenario(
            f"session-{self.dialect}-{self.steps}-{action}",
            action,  # type: ignore[arg-type]
            self.preset,
            self.history,
            **fields,
        )

    def _fail(self, what: str, reports: Sequence[ScenarioReport], scenario: Scenario) -> None:
        data = orjson.dumps(scenario_to_json(scenario), option=orjson.OPT_INDENT_2).decode()
        raise SessionViolation(
            f"{what} (subject {self.subject.name}, {self.dialect}, step {self.steps})\n\n"
            f"{rules_text(reports)}\nthe scenario of this step, as fixture JSON:\n{data}"
        )

    def _check(self, scenario: Scenario, *, log: bool = True) -> Outcome:
        """Assemble ``scenario``, fail on any failing rule, and (``log``) check and log the
        parent's request: the one that produced the last model message of the history."""
        outcome = self._assemble(scenario)
        report = evaluate(scenario, self.dialect, outcome, subject=self.subject.name)
        if report.failed:
            self._fail("a rule failed", [report], scenario)
        if log and outcome.parent is not None:
            self._log_parent(outcome.parent, scenario)
        return outcome

    def _log_parent(self, body: bytes, scenario: Scenario) -> None:
        bodies = self.log.bodies
        label = f"parent@{self.steps}"
        if bodies and bodies[-1][1] == body:
            return
        if bodies:
            report = evaluate_conversation(
                f"session-{self.dialect}-parent",
                self.dialect,
                [bodies[-1], (label, body)],
                subject=self.subject.name,
            )
            if report.failed:
                self._fail("the parent's requests are not append-only", [report], scenario)
        bodies.append((label, body))

    def _restart(self) -> None:
        """The prefix legitimately restarts here (a compaction, a tool change)."""
        self.log = _Log(restarts=self.log.restarts + 1)

    def _probe(self) -> Outcome | None:
        """The parent's request that produced its last model message, through a fork (or, for
        a subject without one-shot forks, a continuable fork) of the session now."""
        if not any(m.role == "model" for m in self.history):
            return None
        if self._lifecycle("one-shot"):
            return self._check(self._scenario("fork", directives=("Check the session so far.",)))
        if self._lifecycle("continuable"):
            return self._check(self._continuable_scenario("Check the session so far.", "parent"))
        return None

    def _continuable_scenario(
        self, task: str, parent_id: str, follow_ups: tuple[FollowUp, ...] = ()
    ) -> Scenario:
        continuation = Continuation(task=task, parent_id=parent_id, follow_ups=follow_ups)
        return self._scenario("continuable", continuation=continuation)

    # --- the session ---------------------------------------------------------------------------

    @initialize(preset=_session_presets(), text=_PHRASES)
    def start(self, preset: Preset, text: str) -> None:
        """The session's preset and the user's first message."""
        if self.dialect not in self.subject.dialects:
            raise ValueError(f"the subject {self.subject.name} does not speak {self.dialect}")
        self.preset = preset
        self.history = (Message("user", (Text(text),)),)

    @precondition(lambda self: self.last is not None and self.last.role == "user")
    @rule(
        text=st.one_of(st.none(), _PHRASES),
        thinking=st.one_of(st.none(), _PHRASES),
        calls=st.integers(0, 3),
        args=st.lists(json_objects(), min_size=3, max_size=3),
        data=st.data(),
    )
    def model_turn(
        self,
        text: str | None,
        thinking: str | None,
        calls: int,
        args: list[FrozenDict],
        data: st.DataObject,
    ) -> None:
        """The model answers: text, thinking, and up to three parallel calls of ordinary tools."""
        parts: list[Part] = []
        if thinking is not None:
            parts.append(Thinking(thinking, signature=f"sig_{self.steps}"))
        if text is not None or not calls:
            parts.append(Text(text or "Done."))
        names = self._ordinary()
        for i in range(calls):
            name = data.draw(st.sampled_from(names), label="tool")
            parts.append(FunctionCall(name, args[i], self._call_id("call")))
        self.history = (*self.history, Message("model", tuple(parts)))
        self._probe()

    @precondition(lambda self: self.last is not None and self.last.role == "model")
    @rule(text=_PHRASES, results=st.lists(json_objects(), min_size=3, max_size=3))
    def user_turn(self, text: str, results: list[FrozenDict]) -> None:
        """The user's next message, answering the model's open calls if it made any."""
        answers = [
            FunctionResponse(c.name, results[i % 3], c.id) for i, c in enumerate(self._open_calls())
        ]
        self.history = (*self.history, Message("user", (*answers, Text(text))))

    @precondition(lambda self: bool(self._open_calls()))
    @rule(results=st.lists(json_objects(), min_size=3, max_size=3))
    def tool_results(self, results: list[FrozenDict]) -> None:
        """The results of the model's open calls, and nothing else."""
        answers = tuple(
            FunctionResponse(c.name, results[i % 3], c.id) for i, c in enumerate(self._open_calls())
        )
        self.history = (*self.history, Message("user", answers))

    @precondition(lambda self: bool(self._open_calls()))
    @rule(text=_PHRASES, results=st.lists(json_objects(), min_size=3, max_size=3))
    def steer(self, text: str, results: list[FrozenDict]) -> None:
        """The user steers while tools run: the results arrive with a message of the user's."""
        answers = tuple(
            FunctionResponse(c.name, results[i % 3], c.id) for i, c in enumerate(self._open_calls())
        )
        steering = Text(f"(while you were working) {text}")
        self.history = (*self.history, Message("user", (*answers, steering)))

    @precondition(lambda self: self._lifecycle("one-shot") and bool(self.history))
    @rule(directive=_PHRASES)
    def fork(self, directive: str) -> None:
        """The runtime forks the parent as it is now (any of the three endings)."""
        self._check(self._scenario("fork", directives=(directive,)))

    @precondition(
        lambda self: (
            self._lifecycle("one-shot") and self.last is not None and self.last.role == "user"
        )
    )
    @rule(
        directives=st.lists(_PHRASES, min_size=1, max_size=3),
        beside=st.booleans(),
        result=json_objects(),
    )
    def fork_call(self, directives: list[str], beside: bool, result: FrozenDict) -> None:
        """The model calls the fork tool (once: a fork; more: siblings), maybe beside a call of
        an ordinary tool; the parent then receives the calls' results."""
        other = [FunctionCall(self._ordinary()[0], result, self._call_id("call"))] if beside else []
        forks = [
            FunctionCall(FORK_TOOL.name, FrozenDict({"directive": d}), self._call_id("fork"))
            for d in directives
        ]
        self.history = (*self.history, Message("model", (*other, *forks)))
        action = "fork" if len(directives) == 1 else "siblings"
        self._check(self._scenario(action, directives=tuple(directives)))
        answers = [FunctionResponse(c.name, result, c.id) for c in other]
        answers += [FunctionResponse(c.name, _STARTED, c.id) for c in forks]
        self.history = (*self.history, Message("user", tuple(answers)))

    @precondition(lambda self: self._lifecycle("continuable") and bool(self.history))
    @rule(target=children, task=_PHRASES, parent_id=st.sampled_from(["main", "atlas-1", "ä/1"]))
    def continuable(self, task: str, parent_id: str) -> int:
        """A continuable child of the parent's completed turns."""
        scenario = self._continuable_scenario(task, parent_id)
        # its parent body is the request of the last *completed* turn, maybe an older one
        outcome = self._check(scenario, log=False)
        key = len(self.kids)
        self.kids[key] = _Child(scenario, (*outcome.children[:1], *outcome.follow_ups))
        return key

    @rule(
        child=children,
        calls=st.integers(0, 2),
        text=_PHRASES,
        results=st.lists(json_objects(), min_size=2, max_size=2),
    )
    def wake(self, child: int, calls: int, text: str, results: list[FrozenDict]) -> None:
        """A continuable child replies (with calls or not) and is woken again with the next
        message: its requests must extend those it sent before."""
        kid = self.kids[child]
        spec = kid.scenario.continuation
        assert spec is not None
        names = self._ordinary()
        made = tuple(
            FunctionCall(names[i % len(names)], results[i], f"child_{child}_{kid.wakes}_{i}")
            for i in range(calls)
        )
        reply = Message("model", (Text(text), *made))
        answers = tuple(FunctionResponse(c.name, results[i], c.id) for i, c in enumerate(made))
        message = Message("user", (*answers, Text(f"More work: {text}")))
        spec = replace(spec, follow_ups=(*spec.follow_ups, FollowUp(reply, message)))
        self.steps += 1
        scenario = replace(
            kid.scenario, id=f"session-{self.dialect}-{self.steps}-wake", continuation=spec
        )
        outcome = self._assemble(scenario)
        report = evaluate(scenario, self.dialect, outcome, subject=self.subject.name)
        if report.failed:
            self._fail("a rule failed when a child was woken", [report], scenario)
        bodies = (*outcome.children[:1], *outcome.follow_ups)
        if kid.bodies and bodies:
            pair = [("before", kid.bodies[-1]), ("woken", bodies[-1])]
            chain = evaluate_conversation(
                f"session-{self.dialect}-child-{child}",
                self.dialect,
                pair,
                subject=self.subject.name,
            )
            if chain.failed:
                self._fail("a woken child rewrites what it sent before", [chain], scenario)
        self.kids[child] = _Child(scenario, bodies, kid.wakes + 1)

    @precondition(
        lambda self: (
            len(self.history) >= 4
            and self.last is not None
            and self.last.role == "model"
            and not self._open_calls()
        )
    )
    @rule(summary=_PHRASES)
    def compact(self, summary: str) -> None:
        """The history is replaced by a summary: the parent's prefix restarts from there."""
        self._restart()
        text = f"Summary of the conversation so far: {summary}"
        self.history = (Message("user", (Text(text),)), Message("model", (Text("Understood."),)))
        self._probe()

    @precondition(lambda self: bool(self.history))
    @rule(data=st.data(), added=st.lists(st.sampled_from(["mcp_query", "mcp_fetch"]), unique=True))
    def reconnect(self, data: st.DataObject, added: list[str]) -> None:
        """An MCP server reconnects: the tools come back reordered, maybe with new ones. The
        prefix restarts, and forks must repeat the new list, not the one before."""
        known = {t.name for t in self.preset.tools}
        new = [Tool(n, f"{n} from the reconnected server.") for n in added if n not in known]
        tools = data.draw(st.permutations((*self.preset.tools, *new)), label="tools")
        self.preset = Preset(self.preset.system, tuple(tools), self.preset.settings)
        self._restart()
        outcome = self._probe()
        if outcome is None or outcome.status != "assembled" or outcome.parent is None:
            return
        expected = [t.name for t in self.preset.tools]
        d = get_dialect(self.dialect)
        sent_bodies = [("parent", outcome.parent)]
        sent_bodies += [(f"children[{i}]", raw) for i, raw in enumerate(outcome.children)]
        for label, raw in sent_bodies:
            sent = [t.name for t in d.parse(orjson.loads(raw)).request.preset.tools]
            if sent != expected:
                self._fail(
                    f"after the tools changed, {label} declares {sent}, not the new {expected}",
                    [],
                    self._scenario("fork", directives=("Check the session so far.",)),
                )

    @precondition(lambda self: any(m.role == "model" for m in self.history))
    @rule()
    def resume(self) -> None:
        """The session is stored and resumed: read back, it must send the same bytes again."""
        stored = scenario_to_json(self._scenario("fork", directives=("resume",)))
        restored = scenario_from_json(orjson.loads(orjson.dumps(stored)), source="session")
        assert restored.history == self.history, "the stored session does not read back"
        assert restored.preset == self.preset, "the stored preset does not read back"
        self.history, self.preset = restored.history, restored.preset
        self._probe()

    @invariant()
    def alternates(self) -> None:
        """The session's own history stays a valid one (a bug of the machine otherwise)."""
        problems = history_problems(self.history)
        assert not problems, problems


def session_machine(
    subject: Subject | None = None, dialect: str = "openai", *, name: str | None = None
) -> type[SessionMachine]:
    """A ``SessionMachine`` subclass for ``subject`` (the reference when None) in ``dialect``;
    its ``TestCase`` is a test pytest collects. A dialect the subject does not speak, or one that
    does not exist, is a ``ValueError`` now."""
    chosen: Subject = subject if subject is not None else ReferenceSubject()
    if not isinstance(chosen, Subject):
        raise ValueError(f"session_machine: subject={chosen!r} is not a harness.subjects.Subject")
    if dialect not in all_dialects():
        raise ValueError(f"session_machine: dialect={dialect!r} is not one of {all_dialects()}")
    if dialect not in chosen.dialects:
        raise ValueError(f"session_machine: the subject {chosen.name} does not speak {dialect}")
    title = name or f"Session_{chosen.name}_{dialect}".replace("-", "_")
    return type(title, (SessionMachine,), {"subject": chosen, "dialect": dialect})
