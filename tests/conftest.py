import os

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.internal.conjecture import providers

from harness.strategies import DEPTH_VARIABLE

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None)
# Nightly: five times the examples (tests that set max_examples scale theirs with the depth),
# longer stateful runs, and PREFIX_HARNESS_DEPTH=4 for longer histories (docs/strategies.md).
settings.register_profile(
    "nightly",
    max_examples=500,
    stateful_step_count=100,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
_profile = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
if _profile == "nightly":
    os.environ.setdefault(DEPTH_VARIABLE, "4")
settings.load_profile(_profile)


@pytest.fixture
def local_constants_asked(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """One entry per time Hypothesis reads the constants of the local modules loaded (it
    does on the first constant it draws in a test case) while the test runs."""
    asked: list[None] = []
    real = providers._get_local_constants

    def spy() -> object:
        asked.append(None)
        return real()

    monkeypatch.setattr(providers, "_get_local_constants", spy)
    return asked
