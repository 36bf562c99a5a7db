"""The recursion guard (docs/protocol.md#lifecycles, recursion): a fork child may not fork again.

A fork child is recognised by its history: the child message that started it carries the
boilerplate's opening tag in a text part. The runtime may also simply know it is a fork.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import FunctionCall, FunctionResponse, Message, Text
from ._wording import DEFAULT_WORDING, Wording

__all__ = ["in_fork_child", "refusal"]


def in_fork_child(history: Sequence[Message], *, wording: Wording = DEFAULT_WORDING) -> bool:
    """Whether any text part of any message in ``history`` holds the boilerplate's open tag."""
    tag = wording.open_tag
    return any(
        isinstance(part, Text) and tag in part.text for message in history for part in message.parts
    )


def refusal(fork_call: FunctionCall, *, wording: Wording = DEFAULT_WORDING) -> FunctionResponse:
    """The error result a fork child receives for a fork call that was refused."""
    return FunctionResponse(
        name=fork_call.name, response=wording.recursion_error, id=fork_call.id, is_error=True
    )
