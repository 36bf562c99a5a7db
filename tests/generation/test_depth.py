import pytest

from harness.strategies import DEPTH_VARIABLE, depth, long_turns


def test_the_depth_is_1_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEPTH_VARIABLE, raising=False)
    assert depth() == 1
    assert long_turns() == (100, 150)


def test_the_depth_multiplies_the_long_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEPTH_VARIABLE, "4")
    assert depth() == 4
    assert long_turns() == (100, 600)


@pytest.mark.parametrize("raw", ["0", "-2", "deep", "1.5"])
def test_a_bad_depth_names_the_variable(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(DEPTH_VARIABLE, raw)
    with pytest.raises(ValueError, match=f"{DEPTH_VARIABLE}={raw!r} must be a whole number"):
        depth()
