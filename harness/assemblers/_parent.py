"""The parent side: its requests (docs/protocol.md) and the cache-safe snapshot forks inherit.

A fork must reuse the exact system instruction, tools and settings of the parent's last
request. ``ParentSession`` records what the parent sent and snapshots that preset each time
a turn completes, so a fork started mid-turn still sees the parameters of a request that was
actually sent. Sessions are immutable: every step returns the next session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..model import FunctionCall, Message, Preset, Request, Tool
from ..scenarios import check_history
from ._oneshot import ForkResult, assemble_fork
from ._wording import DEFAULT_WORDING, Wording

__all__ = ["ParentSession", "assemble_parent"]


def assemble_parent(
    preset: Preset, history: Sequence[Message], *, wording: Wording = DEFAULT_WORDING
) -> Request:
    """The parent's request: its preset and its history, unchanged.

    ``wording`` is unused (the parent's request carries no reference text); it is accepted
    so that every assembler has the same call shape.
    """
    if not isinstance(preset, Preset):
        raise ValueError(f"preset must be a Preset, not a {type(preset).__name__}")
    return Request(preset=preset, history=check_history(history))


@dataclass(frozen=True, slots=True)
class ParentSession:
    """What a parent agent has sent and received, and its cache-safe parameters.

    ``history`` is the conversation so far (a sent request's history, then the model's
    reply once its turn completes); ``pending`` is a request still waiting for its reply;
    ``last_request`` the latest request whose turn completed.
    """

    history: tuple[Message, ...] = ()
    pending: Request | None = None
    last_request: Request | None = None
    turns: int = 0

    @property
    def cache_safe_params(self) -> Preset | None:
        """The preset of the parent's last completed request; None before the first turn."""
        return self.last_request.preset if self.last_request is not None else None

    def record_request(self, request: Request) -> ParentSession:
        """The session after sending ``request``, which must extend the history sent so far."""
        if self.pending is not None:
            raise ValueError("a request is already waiting for its reply; complete that turn")
        history = check_history(request.history, what="request.history")
        if history[: len(self.history)] != self.history:
            raise ValueError(
                "request.history does not start with the session's history: a parent request "
                "extends the conversation, it does not rewrite it"
            )
        if len(history) == len(self.history) or history[-1].role != "user":
            raise ValueError("request.history must add messages ending with a user message")
        return replace(self, history=history, pending=request)

    def complete_turn(self, model_message: Message) -> ParentSession:
        """The session after the model's reply to the pending request: the snapshot moves."""
        if self.pending is None:
            raise ValueError("no request is waiting for a reply; record_request first")
        if not isinstance(model_message, Message) or model_message.role != "model":
            raise ValueError("complete_turn takes the model's reply, a Message with role 'model'")
        return ParentSession(
            history=(*self.history, model_message),
            pending=None,
            last_request=self.pending,
            turns=self.turns + 1,
        )

    @classmethod
    def replay(cls, preset: Preset, history: Sequence[Message]) -> ParentSession:
        """The session of a parent that sent ``preset`` with each prefix of ``history``.

        Every model message completes a turn; a trailing user message is left pending.
        """
        messages = check_history(history)
        session = cls()
        for i, message in enumerate(messages):
            if message.role == "user":
                continue
            session = session.record_request(Request(preset, messages[:i]))
            session = session.complete_turn(message)
        if messages and messages[-1].role == "user":
            session = session.record_request(Request(preset, messages))
        return session

    def fork(
        self,
        directive: str,
        *,
        fork_call: FunctionCall | None = None,
        default_tools: Sequence[Tool] = (),
        wording: Wording = DEFAULT_WORDING,
    ) -> ForkResult:
        """A one-shot fork of this parent now, using its cache-safe parameters verbatim."""
        return assemble_fork(
            self.history,
            directive,
            cache_safe=self.cache_safe_params,
            fork_call=fork_call,
            default_tools=default_tools,
            wording=wording,
        )
