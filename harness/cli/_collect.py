"""Garbage collection paced for a long command (``check``, ``check-log``).

Python collects its youngest generation every 700 net allocations of containers, and every
few of those an older generation, walking each object that survived so far: the modules,
classes and functions start-up loaded (Hypothesis, the rules), then the scenarios and
reports the run keeps. ``paced_collections`` raises the youngest generation's threshold for
the command, and once it calls ``started()`` (start-up over) freezes what is alive then
(``gc.freeze``): no collection walks it again, Hypothesis's own full collection included.
Leaving restores the threshold and hands the frozen objects back to the collector, unless
the process ends with the command (``main``): the interpreter's last collection at exit would
only walk them again. Cycles are still collected, so memory stays bounded; what a command
prints does not depend on when collections happen.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

__all__ = ["YOUNG_THRESHOLD", "ends_process", "paced_collections"]

YOUNG_THRESHOLD: Final = 100_000
"""Net allocations between two collections of the youngest generation while a command runs
(Python's default: 700); the older generations keep their thresholds."""

_ending: list[bool] = [False]


def ends_process() -> None:
    """Say that the process ends with the command (the console script's ``main``): what
    ``started()`` froze is left frozen for the exit."""
    _ending[0] = True


@contextmanager
def paced_collections() -> Iterator[Callable[[], None]]:
    """The command's collections paced (see the module); yields ``started``, to call once
    start-up is over. Objects frozen before it are left as they were."""
    threshold = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    froze = False

    def started() -> None:
        nonlocal froze
        gc.freeze()
        froze = True

    gc.set_threshold(YOUNG_THRESHOLD, *threshold[1:])
    try:
        yield started
    finally:
        gc.set_threshold(*threshold)
        if froze and not frozen_before and not _ending[0]:
            gc.unfreeze()
