"""The argument checks: each names the caller's argument in one sentence."""

import pytest

from harness.generation._checks import check_at_least, check_flag, check_sizes


def test_sizes_name_the_arguments_as_written() -> None:
    check_sizes("f", 0, None)
    check_sizes("f", 2, 2)
    with pytest.raises(ValueError, match=r"^f: min_size=-1 must be at least 0$"):
        check_sizes("f", -1, 3)
    with pytest.raises(ValueError, match=r"^f: high=1 is below low=2$"):
        check_sizes("f", 2, 1, low="low", high="high")
    with pytest.raises(ValueError, match=r"^f: max_size=-2 is below the least, 0$"):
        check_sizes("f", 0, -2, low="")


def test_flags_are_true_false_or_none() -> None:
    for value in (True, False, None):
        check_flag("f", "opt", value)
    with pytest.raises(ValueError, match=r"^f: opt=1 must be True, False or None \(either\)$"):
        check_flag("f", "opt", 1)


def test_at_least_wants_a_whole_number() -> None:
    check_at_least("f", "n", 3, 3)
    for bad in (2, 2.5, "3"):
        with pytest.raises(ValueError, match=r"^f: n=.* must be at least 3$"):
            check_at_least("f", "n", bad, 3)  # type: ignore[arg-type]
