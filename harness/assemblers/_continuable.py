"""The continuable fork (docs/protocol.md#lifecycles): a child that keeps talking via send_message.

The child repeats the parent's preset and its completed turns; the task, with return
guidance naming the direct parent, comes after them as a user message, never in the system
prompt. Overrides a runtime may restore on cold resume (a tool filter, a persona) and a
child-only structured-output tool are accepted divergences: applied, and flagged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from ..model import Message, Preset, Request, Text, Tool
from ..scenarios import (
    SEND_MESSAGE,
    calls_answered,
    check_history,
    completed_prefix,
    has_send_message,
)
from ._wording import DEFAULT_WORDING, Wording

__all__ = [
    "ColdResume",
    "ContinuableChild",
    "Divergence",
    "DivergenceName",
    "StructuredOutput",
    "assemble_continuable",
    "follow_up",
]

DivergenceName: TypeAlias = Literal["tool-filter", "persona", "structured-output"]


@dataclass(frozen=True, slots=True)
class Divergence:
    """An accepted, flagged way in which the child's request head differs from the parent's."""

    name: DivergenceName
    detail: str


@dataclass(frozen=True, slots=True)
class ColdResume:
    """Overrides restored from a stored child descriptor when a child is resumed cold.

    ``tool_filter`` lists the tool names the child may see (the parent's order is kept);
    ``persona`` replaces the system blocks.
    """

    tool_filter: tuple[str, ...] | None = None
    persona: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("tool_filter", "persona"):
            value = getattr(self, name)
            if value is not None and not (
                isinstance(value, tuple) and all(isinstance(v, str) and v for v in value)
            ):
                raise ValueError(f"ColdResume.{name} is a tuple of non-empty strings or None")


@dataclass(frozen=True, slots=True)
class StructuredOutput:
    """A child that must answer in a fixed shape: a child-only tool and system section."""

    tool: Tool
    section: str


def follow_up(request: Request, model_reply: Message, message: Message) -> Request:
    """The child's next request: ``request``'s history, the reply, then ``message`` appended.

    ``message`` is the user turn after the reply: the results of its calls, new text, or
    both. Nothing before is touched, so the next request extends the previous one.
    """
    if not request.history or request.history[-1].role != "user":
        raise ValueError("request.history must end with the user message that was sent")
    if not isinstance(model_reply, Message) or model_reply.role != "model":
        raise ValueError("model_reply must be a Message with role 'model'")
    if not isinstance(message, Message) or message.role != "user":
        raise ValueError("message must be a Message with role 'user'")
    if not calls_answered(model_reply.function_calls, message.function_responses):
        raise ValueError("message must answer each call of model_reply exactly once")
    history = check_history((*request.history, model_reply, message))
    return Request(request.preset, history, request.cache_breakpoints)


@dataclass(frozen=True, slots=True)
class ContinuableChild:
    """A continuable fork child's first request and how it was formed.

    ``seed`` is the parent's completed turns, repeated verbatim; ``task_message`` the text
    of the user message after it (the task, then the guidance when ``send_message`` is
    visible to the child, i.e. when ``guided``).
    """

    parent_id: str
    seed: tuple[Message, ...]
    task: str
    task_message: str
    guided: bool
    request: Request
    divergences: tuple[Divergence, ...] = ()

    def follow_up(self, model_reply: Message, message: Message) -> Request:
        """The child's second request, extending its first one append-only."""
        return follow_up(self.request, model_reply, message)


def _filter_tools(tools: tuple[Tool, ...], allowed: tuple[str, ...]) -> tuple[Tool, ...]:
    known = [t.name for t in tools]
    unknown = [name for name in allowed if name not in known]
    if unknown:
        raise ValueError(f"tool filter names unknown tools {unknown}; the preset has {known}")
    return tuple(t for t in tools if t.name in allowed)


def _child_preset(
    preset: Preset, resume: ColdResume | None, structured: StructuredOutput | None
) -> tuple[Preset, tuple[Divergence, ...]]:
    system, tools = preset.system, preset.tools
    found: list[Divergence] = []
    if resume is not None and resume.tool_filter is not None:
        tools = _filter_tools(tools, resume.tool_filter)
        removed = [t.name for t in preset.tools if t not in tools]
        if removed:
            found.append(Divergence("tool-filter", f"restored filter removes {removed}"))
    if resume is not None and resume.persona is not None:
        if resume.persona != system:
            found.append(Divergence("persona", "restored persona replaces the system blocks"))
        system = resume.persona
    if structured is not None:
        if structured.tool.name in {t.name for t in tools}:
            raise ValueError(f"structured output tool {structured.tool.name!r} is already declared")
        if not structured.section.strip():
            raise ValueError("a structured output section must not be empty")
        tools = (*tools, structured.tool)
        system = (*system, structured.section)
        found.append(
            Divergence(
                "structured-output",
                f"child-only tool {structured.tool.name!r} and system section appended",
            )
        )
    return Preset(system=system, tools=tools, settings=preset.settings), tuple(found)


def assemble_continuable(
    history: Sequence[Message],
    task: str,
    *,
    preset: Preset,
    parent_id: str,
    resume: ColdResume | None = None,
    structured_output: StructuredOutput | None = None,
    wording: Wording = DEFAULT_WORDING,
) -> ContinuableChild:
    """A continuable child of the parent with ``preset`` and conversation ``history``.

    ``preset`` must declare ``send_message`` (see ``with_send_message``): the tool is
    global, never added for the child alone. ``parent_id`` is the direct parent's id.
    """
    messages = check_history(history)
    if not isinstance(task, str) or not task.strip():
        raise ValueError("a continuable fork needs a non-empty task")
    if not isinstance(parent_id, str) or not parent_id:
        raise ValueError("parent_id must be a non-empty string")
    if not has_send_message(preset.tools):
        raise ValueError(
            f"the parent preset declares no {SEND_MESSAGE!r} tool; it is registered for every "
            "agent (with_send_message), so parent and child declare the same tools"
        )
    child_preset, divergences = _child_preset(preset, resume, structured_output)
    guided = has_send_message(child_preset.tools)
    text = f"{task}\n\n{wording.guidance_for(parent_id)}" if guided else task
    seed = completed_prefix(messages)
    return ContinuableChild(
        parent_id=parent_id,
        seed=seed,
        task=task,
        task_message=text,
        guided=guided,
        request=Request(child_preset, (*seed, Message("user", (Text(text),)))),
        divergences=divergences,
    )
