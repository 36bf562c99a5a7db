"""Every rule's implementation by id: the engine looks rules up here, the catalog names them."""

from __future__ import annotations

from collections.abc import Callable

from . import (
    _rules_continuable,
    _rules_history,
    _rules_lifecycle,
    _rules_markers,
    _rules_outcome,
    _rules_prefix,
    _rules_preset,
    _rules_rendered,
    _rules_shape,
)
from ._context import Context
from ._report import Finding

__all__ = ["CHECKS", "Check"]

Check = Callable[[Context], Finding]

CHECKS: dict[str, Check] = {
    **_rules_outcome.CHECKS,
    **_rules_preset.CHECKS,
    **_rules_history.CHECKS,
    **_rules_rendered.CHECKS,
    **_rules_prefix.CHECKS,
    **_rules_shape.CHECKS,
    **_rules_continuable.CHECKS,
    **_rules_lifecycle.CHECKS,
    **_rules_markers.CHECKS,
}
