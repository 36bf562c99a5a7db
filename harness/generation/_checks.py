"""Argument checks shared by the public strategies: a bad option is a ``ValueError`` naming
the caller's argument, raised when the strategy is built."""

from __future__ import annotations

__all__ = ["check_at_least", "check_flag", "check_sizes"]


def check_sizes(
    name: str, min_size: int, max_size: int | None, *, low: str = "min_size", high: str = "max_size"
) -> None:
    """Bounds of a size, named as the caller wrote them (``low``, ``high``: the arguments)."""
    if min_size < 0:
        raise ValueError(f"{name}: {low}={min_size} must be at least 0")
    if max_size is not None and max_size < min_size:
        lower = f"{low}={min_size}" if low else f"the least, {min_size}"
        raise ValueError(f"{name}: {high}={max_size} is below {lower}")


def check_flag(name: str, option: str, value: object) -> None:
    """An option that is True (forced), False (ruled out) or None (drawn)."""
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{name}: {option}={value!r} must be True, False or None (either)")


def check_at_least(name: str, option: str, value: int, least: int) -> None:
    """A whole number from ``least`` up."""
    if not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: {option}={value!r} must be at least {least}")
