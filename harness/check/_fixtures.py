"""Where the bundled fixture corpus is: in the wheel, or in the source checkout."""

from __future__ import annotations

from pathlib import Path

__all__ = ["bundled_fixtures"]

_PACKAGE = Path(__file__).resolve().parent.parent


def bundled_fixtures() -> Path:
    """The corpus folder: ``harness/_fixtures`` when installed, ``fixtures/`` in a checkout."""
    installed = _PACKAGE / "_fixtures"
    return installed if installed.is_dir() else _PACKAGE.parent / "fixtures"
