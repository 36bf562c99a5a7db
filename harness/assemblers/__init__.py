"""The bundled reference implementation: what a conforming runtime sends (docs/protocol.md).

Assemblers turn a preset, a parent history and an action (fork, continuable fork, spawn)
into neutral ``Request`` values; a dialect renders them. All reference text comes from one
``Wording``, passed as ``wording=``, so that subjects worded otherwise can be described.
"""

from ._accounting import Card, Delegation, Lane, Retained
from ._continuable import (
    ColdResume,
    ContinuableChild,
    Divergence,
    DivergenceName,
    StructuredOutput,
    assemble_continuable,
    follow_up,
)
from ._guard import in_fork_child, refusal
from ._history import (
    HistoryEnding,
    calls_answered,
    check_history,
    completed_prefix,
    history_ending,
    history_problems,
)
from ._oneshot import ForkResult, assemble_fork, assemble_siblings
from ._parent import ParentSession, assemble_parent
from ._send_message import SEND_MESSAGE, SEND_MESSAGE_TOOL, has_send_message, with_send_message
from ._spawn import Spawn, assemble_spawn
from ._wording import DEFAULT_WORDING, PARENT_ID, Wording

__all__ = [
    "DEFAULT_WORDING",
    "PARENT_ID",
    "SEND_MESSAGE",
    "SEND_MESSAGE_TOOL",
    "Card",
    "ColdResume",
    "ContinuableChild",
    "Delegation",
    "Divergence",
    "DivergenceName",
    "ForkResult",
    "HistoryEnding",
    "Lane",
    "ParentSession",
    "Retained",
    "Spawn",
    "StructuredOutput",
    "Wording",
    "assemble_continuable",
    "assemble_fork",
    "assemble_parent",
    "assemble_siblings",
    "assemble_spawn",
    "calls_answered",
    "check_history",
    "completed_prefix",
    "follow_up",
    "has_send_message",
    "history_ending",
    "history_problems",
    "in_fork_child",
    "refusal",
    "with_send_message",
]
