"""The bundled reference subject: the assemblers of ``harness.assemblers``, rendered per dialect."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..assemblers import (
    DEFAULT_WORDING,
    ColdResume,
    StructuredOutput,
    Wording,
    assemble_continuable,
    assemble_siblings,
    assemble_spawn,
    follow_up,
)
from ..dialects import all_dialects, get_dialect
from ..model import FunctionCall, Message, Preset, Request
from ..protocol import Outcome, OutcomeStatus
from ..scenarios import Lifecycle, Scenario, completed_prefix, parent_preset

__all__ = ["ReferenceSubject", "inherited_parent_request"]

_Render = Callable[[Request], bytes]


def inherited_parent_request(preset: Preset, inherited: Sequence[Message]) -> Request | None:
    """The parent's request that produced the last model message of ``inherited``."""
    for end in range(len(inherited), 0, -1):
        if inherited[end - 1].role == "model":
            return Request(preset, tuple(inherited[: end - 1]))
    return None


def _fork_calls(scenario: Scenario) -> list[FunctionCall] | None:
    last = scenario.history[-1] if scenario.history else None
    if last is None or last.role != "model":
        return None
    calls = [c for c in last.function_calls if c.name == scenario.fork_tool]
    return calls if len(calls) == len(scenario.directives) else None


@dataclass(frozen=True, slots=True)
class _Plan:
    """A scenario's requests, the same in every dialect (only their rendering differs), in
    the order the bodies are rendered: follow-ups, parent, children, parent_next. ``error``
    is what a follow-up raised, after those before it (which are still rendered first)."""

    status: OutcomeStatus
    parent: Request | None = None
    children: tuple[Request, ...] = ()
    follow_ups: tuple[Request, ...] = ()
    parent_next: Request | None = None
    message: str | None = None
    error: Exception | None = None

    def outcome(self, render: _Render) -> Outcome:
        follow_ups = tuple(render(r) for r in self.follow_ups)
        if self.error is not None:
            raise self.error
        return Outcome(
            self.status,
            parent=render(self.parent) if self.parent is not None else None,
            children=tuple(render(r) for r in self.children),
            follow_ups=follow_ups,
            parent_next=render(self.parent_next) if self.parent_next is not None else None,
            message=self.message,
        )


@dataclass(frozen=True)
class ReferenceSubject:
    """What a conforming runtime sends, for every scenario in every dialect."""

    wording: Wording = field(default=DEFAULT_WORDING)
    name: str = "reference"

    @property
    def dialects(self) -> tuple[str, ...]:
        return tuple(all_dialects())

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]:
        return ("one-shot", "continuable", "spawn")

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        render = get_dialect(dialect).render
        return self._plan(scenario).outcome(render)

    def _plan(self, scenario: Scenario) -> _Plan:
        """The scenario's requests, the same in every dialect."""
        if scenario.action in ("fork", "siblings"):
            return self._forks(scenario)
        if scenario.action == "continuable":
            return self._continuable(scenario)
        return self._spawn(scenario)

    def _forks(self, scenario: Scenario) -> _Plan:
        results = assemble_siblings(
            scenario.history,
            scenario.directives,
            cache_safe=scenario.preset if scenario.snapshot else None,
            fork_calls=_fork_calls(scenario),
            default_tools=scenario.default_tools,
            wording=self.wording,
        )
        first = results[0]
        parent = inherited_parent_request(scenario.preset, first.inherited or scenario.history)
        sent = parent if scenario.snapshot else None
        if first.rejected or scenario.known_fork_child:
            message = first.error or self.wording.recursion_error
            return _Plan("rejected", parent=sent, message=message)
        children = tuple(r.request for r in results if r.request is not None)
        return _Plan("assembled", parent=sent, children=children)

    def _continuable(self, scenario: Scenario) -> _Plan:
        spec = scenario.continuation
        assert spec is not None  # a Scenario checks this on creation
        preset = parent_preset(scenario)
        structured = (
            StructuredOutput(spec.output_tool, spec.output_section or "")
            if spec.output_tool is not None
            else None
        )
        child = assemble_continuable(
            scenario.history,
            spec.task,
            preset=preset,
            parent_id=spec.parent_id,
            resume=ColdResume(spec.tool_filter, spec.persona)
            if spec.tool_filter is not None or spec.persona is not None
            else None,
            structured_output=structured,
            wording=self.wording,
        )
        parent = inherited_parent_request(preset, completed_prefix(scenario.history))
        request = child.request
        follow_ups: list[Request] = []
        error: Exception | None = None
        for step in spec.follow_ups:
            try:
                request = follow_up(request, step.reply, step.message)
            except Exception as e:  # raised once the follow-ups before it are rendered
                error = e
                break
            follow_ups.append(request)
        return _Plan(
            "assembled",
            parent=parent,
            children=(child.request,),
            follow_ups=tuple(follow_ups),
            error=error,
        )

    def _spawn(self, scenario: Scenario) -> _Plan:
        assert scenario.prompt is not None  # a Scenario checks this on creation
        calls = scenario.history[-1].function_calls if scenario.history else ()
        call = next((c for c in calls if c.name == scenario.fork_tool), None)
        if call is None:
            return _Plan(
                "skipped",
                message=f"the history's last message does not call {scenario.fork_tool!r}",
            )
        spawn = assemble_spawn(
            scenario.prompt, preset=scenario.preset, call=call, wording=self.wording
        )
        parent = inherited_parent_request(scenario.preset, scenario.history)
        after = Request(
            scenario.preset,
            (*scenario.history, spawn.result_message(scenario.answer or "")),
        )
        return _Plan("assembled", parent=parent, children=(spawn.request,), parent_next=after)
