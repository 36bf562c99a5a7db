"""``no_local_constants``: a check draws the same scenarios whatever local code is loaded."""

from __future__ import annotations

import pytest
from hypothesis.internal.conjecture import providers

from harness.check import generate
from harness.check._constants import no_local_constants
from harness.scenarios import ACTIONS


def test_a_check_reads_no_local_constants(local_constants_asked: list[None]) -> None:
    """A check's generation (and so its shrinking, the same run) never asks Hypothesis for
    the constants of the local modules loaded."""
    spy = providers._get_local_constants
    assert generate(ACTIONS, 6)
    assert local_constants_asked == []
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
