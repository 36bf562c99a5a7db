"""``no_local_constants``: a check draws the same scenarios whatever local code is loaded."""

from __future__ import annotations

import pytest
from hypothesis.internal.conjecture import providers

from harness.check import generate
from harness.check._constants import no_local_constants
from harness.scenarios import ACTIONS


def test_a_check_reads_no_local_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hypothesis reads the constants of local modules on the first constant it draws in a
    test case; a check's generation (and so its shrinking, the same run) never asks."""
    asked: list[object] = []
    real = providers._get_local_constants

    def spy() -> object:
        asked.append(None)
        return real()

    monkeypatch.setattr(providers, "_get_local_constants", spy)
    assert generate(ACTIONS, 6)
    assert asked == []
    with no_local_constants():
        pass
    assert providers._get_local_constants is spy  # what was there is put back


def test_hypothesis_is_told_and_given_its_own_back() -> None:
    get, cache = providers._get_local_constants, providers.CONSTANTS_CACHE
    with no_local_constants() as told:
        assert told  # this Hypothesis has the names: a release without them shows here
        assert providers._get_local_constants is not get
        assert providers.CONSTANTS_CACHE is not cache
        assert not providers._get_local_constants().strings
    assert providers._get_local_constants is get
    assert providers.CONSTANTS_CACHE is cache


def test_hypothesis_is_given_its_own_back_after_an_error() -> None:
    get, cache = providers._get_local_constants, providers.CONSTANTS_CACHE
    with pytest.raises(KeyError), no_local_constants():
        raise KeyError("drawn")
    assert (providers._get_local_constants, providers.CONSTANTS_CACHE) == (get, cache)
