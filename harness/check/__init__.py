"""``prefix-harness check``: a subject over the fixture corpus and generated scenarios.

The names are loaded on first use (module ``__getattr__``): ``check-log`` reads a run's known
failures (``_expect``) without loading the generators behind ``run_check``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy

if TYPE_CHECKING:
    from ._constants import no_local_constants
    from ._expect import (
        ExpectationError,
        Expectations,
        KnownFailure,
        expectations_toml,
        load_expectations,
    )
    from ._fixtures import bundled_fixtures
    from ._generate import generate
    from ._jobs import cpu_count
    from ._results import CheckRun, ShrunkFailure
    from ._run import MAX_HANGS, Progress, run_check

__all__ = [
    "MAX_HANGS",
    "CheckRun",
    "ExpectationError",
    "Expectations",
    "KnownFailure",
    "Progress",
    "ShrunkFailure",
    "bundled_fixtures",
    "cpu_count",
    "expectations_toml",
    "generate",
    "load_expectations",
    "no_local_constants",
    "run_check",
]

_MODULES = {
    "no_local_constants": "_constants",
    "ExpectationError": "_expect",
    "Expectations": "_expect",
    "KnownFailure": "_expect",
    "expectations_toml": "_expect",
    "load_expectations": "_expect",
    "bundled_fixtures": "_fixtures",
    "cpu_count": "_jobs",
    "MAX_HANGS": "_run",
    "CheckRun": "_results",
    "Progress": "_run",
    "ShrunkFailure": "_results",
    "generate": "_generate",
    "run_check": "_run",
}

__getattr__, __dir__ = lazy(__name__, globals(), _MODULES)
