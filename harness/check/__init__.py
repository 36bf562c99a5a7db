"""``prefix-harness check``: a subject over the fixture corpus and generated scenarios."""

from ._expect import (
    ExpectationError,
    Expectations,
    KnownFailure,
    expectations_toml,
    load_expectations,
)
from ._fixtures import bundled_fixtures
from ._jobs import cpu_count
from ._run import MAX_HANGS, CheckRun, Progress, ShrunkFailure, generate, run_check

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
    "run_check",
]
