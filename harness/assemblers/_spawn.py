"""Spawn (docs/protocol.md#lifecycles): a child that starts from the delegation prompt alone.

Nothing of the parent's conversation reaches the child, which is the point (the parent's
context stays small) and the risk (constraints left out of the prompt are not seen). The
parent grows by its one delegation call and the one result it gets back.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import FunctionCall, FunctionResponse, Message, Preset, Request, Text
from ._wording import DEFAULT_WORDING, Wording

__all__ = ["Spawn", "assemble_spawn"]


@dataclass(frozen=True, slots=True)
class Spawn:
    """A spawned child: the parent's delegation ``call`` and the child's first ``request``."""

    call: FunctionCall
    prompt: str
    request: Request

    def result_message(self, answer: str) -> Message:
        """The one user message the parent appends: the child's answer as the call's result."""
        if not isinstance(answer, str):
            raise ValueError("the child's answer is a string")
        return Message("user", (FunctionResponse(self.call.name, answer, self.call.id),))


def assemble_spawn(
    prompt: str, *, preset: Preset, call: FunctionCall, wording: Wording = DEFAULT_WORDING
) -> Spawn:
    """The child's request for ``prompt``: ``preset`` and a fresh one-message history.

    ``preset`` is the child's own (an agent type's, or the parent's). ``wording`` is unused
    (the reference adds no text to a spawn); it is accepted so that every assembler has the
    same call shape.
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("a spawn needs a non-empty delegation prompt")
    if not isinstance(call, FunctionCall):
        raise ValueError("call must be the parent's FunctionCall that delegates the work")
    return Spawn(
        call=call, prompt=prompt, request=Request(preset, (Message("user", (Text(prompt),)),))
    )
