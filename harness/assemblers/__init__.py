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
from ._oneshot import ForkResult, assemble_fork, assemble_siblings
from ._parent import ParentSession, assemble_parent
from ._spawn import Spawn, assemble_spawn
from ._wording import DEFAULT_WORDING, PARENT_ID, Wording

__all__ = [
    "DEFAULT_WORDING",
    "PARENT_ID",
    "Card",
    "ColdResume",
    "ContinuableChild",
    "Delegation",
    "Divergence",
    "DivergenceName",
    "ForkResult",
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
    "follow_up",
    "in_fork_child",
    "refusal",
]
