"""The one-shot fork (docs/protocol.md#lifecycles): parent context in, one child request out.

The fork reuses the parent's cache-safe parameters verbatim and its history as far as it
can, so the child's request starts with the parent's bytes. Its history must end with a
model message so the task can follow as the next user turn; open calls of the parent's last
message are closed with identical placeholder responses, which keeps siblings
byte-identical up to their directive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model import FunctionCall, FunctionResponse, Message, Preset, Request, Text, Tool
from ..scenarios import HistoryEnding, check_history, history_ending
from ._guard import in_fork_child, refusal
from ._wording import DEFAULT_WORDING, Wording

__all__ = ["ForkResult", "assemble_fork", "assemble_siblings"]


@dataclass(frozen=True, slots=True)
class ForkResult:
    """The outcome of one fork request.

    ``inherited`` is the span of the parent's history the fork repeats verbatim (all of it,
    less a trailing user message); ``history`` is the fork's history before its task;
    ``request`` is that history plus the task as a final user message. ``tool_result`` is
    what the requester receives at once for its fork call: the background placeholder, or
    the refusal when ``rejected`` (then there is no request at all). ``degraded`` marks a
    fork made without cache-safe parameters, which shares no prefix with the parent.
    """

    directive: str
    ending: HistoryEnding
    inherited: tuple[Message, ...]
    history: tuple[Message, ...]
    task: str
    request: Request | None
    tool_result: FunctionResponse | None
    degraded: bool = False
    rejected: bool = False
    error: str | None = None

    def __post_init__(self) -> None:
        if self.rejected != (self.request is None) or self.rejected != (self.error is not None):
            raise ValueError("a ForkResult is rejected with an error and no request, or neither")


def _check_directive(directive: str) -> str:
    if not isinstance(directive, str) or not directive.strip():
        raise ValueError("a fork needs a non-empty directive")
    return directive


def _fallback(default_tools: Sequence[Tool], wording: Wording) -> Preset:
    tools = tuple(default_tools)
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        raise ValueError(f"default_tools has duplicate names: {names}")
    return Preset(system=(wording.fallback_system,), tools=tools)


def _build_history(
    history: tuple[Message, ...], directive: str, wording: Wording
) -> tuple[tuple[Message, ...], tuple[Message, ...], str]:
    """(inherited, fork history, task) for the three endings of docs/protocol.md#lifecycles.

    A trailing user message is dropped first; if that leaves calls open (the dropped message
    answered them), they are closed the same way as when the parent ends with calls.
    """
    inherited = history[:-1] if history and history[-1].role == "user" else history
    child = wording.child_message(directive)
    open_calls = inherited[-1].function_calls if inherited else ()
    if not open_calls:
        return inherited, inherited, child
    placeholders = tuple(
        FunctionResponse(name=c.name, response=wording.placeholder, id=c.id) for c in open_calls
    )
    closing = Message("user", (*placeholders, Text(child)))
    ack = Message("model", (Text(wording.acknowledgement),))
    return inherited, (*inherited, closing, ack), wording.begin


def assemble_fork(
    history: Sequence[Message],
    directive: str,
    *,
    cache_safe: Preset | None,
    fork_call: FunctionCall | None = None,
    known_fork_child: bool = False,
    default_tools: Sequence[Tool] = (),
    wording: Wording = DEFAULT_WORDING,
) -> ForkResult:
    """Fork the parent whose conversation is ``history`` to carry out ``directive``.

    ``cache_safe`` is the parent's snapshot (``ParentSession.cache_safe_params``); without
    one the fork is degraded to ``wording.fallback_system`` and ``default_tools``.
    ``fork_call`` is the parent's call that asked for the fork, one of the calls of its last
    message; it gets the background (or refusal) result. ``known_fork_child`` says the
    runtime knows the requester is a fork even if its history does not show it.
    """
    messages = check_history(history)
    _check_directive(directive)
    ending = history_ending(messages)
    if fork_call is not None and (ending != "model_calls" or fork_call not in messages[-1].parts):
        raise ValueError("fork_call is not one of the calls of the history's last message")
    if known_fork_child or in_fork_child(messages, wording=wording):
        return ForkResult(
            directive=directive,
            ending=ending,
            inherited=(),
            history=(),
            task="",
            request=None,
            tool_result=refusal(fork_call, wording=wording) if fork_call is not None else None,
            rejected=True,
            error=wording.recursion_error,
        )
    inherited, fork_history, task = _build_history(messages, directive, wording)
    preset = cache_safe if cache_safe is not None else _fallback(default_tools, wording)
    started = (
        FunctionResponse(name=fork_call.name, response=wording.background_started, id=fork_call.id)
        if fork_call is not None
        else None
    )
    return ForkResult(
        directive=directive,
        ending=ending,
        inherited=inherited,
        history=fork_history,
        task=task,
        request=Request(preset, (*fork_history, Message("user", (Text(task),)))),
        tool_result=started,
        degraded=cache_safe is None,
    )


def assemble_siblings(
    history: Sequence[Message],
    directives: Sequence[str],
    *,
    cache_safe: Preset | None,
    fork_calls: Sequence[FunctionCall] | None = None,
    default_tools: Sequence[Tool] = (),
    wording: Wording = DEFAULT_WORDING,
) -> tuple[ForkResult, ...]:
    """Sibling forks from one parent message, one per directive (``fork_calls`` in step).

    They differ only in their directive text: everything before it is byte-identical.
    """
    if isinstance(directives, str) or not directives:
        raise ValueError("siblings need a sequence of at least one directive")
    calls: Sequence[FunctionCall | None] = (
        [None] * len(directives) if fork_calls is None else fork_calls
    )
    if len(calls) != len(directives):
        raise ValueError(f"{len(directives)} directives but {len(calls)} fork calls")
    return tuple(
        assemble_fork(
            history,
            directive,
            cache_safe=cache_safe,
            fork_call=call,
            default_tools=default_tools,
            wording=wording,
        )
        for directive, call in zip(directives, calls, strict=True)
    )
