"""Tokens of rendered units (harness/prefix/_count.py)."""

from __future__ import annotations

import pytest

from harness.prefix import _count


def test_a_unit_longer_than_the_tokenizer_takes_is_counted_in_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tokenizer refuses a text of a million characters (a pasted file in a tool
    result): it is counted piece by piece, cut where the tokenizer parts words anyway, and
    the pieces sum to the whole text's count."""
    encoder = _count.tokenizer("o200k_base")
    if encoder is None:
        pytest.fail("the tokens extra is part of the dev install")
    line = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n"
    text = line * 20_000
    assert len(text) > 1_000_000
    with pytest.raises(ValueError, match="too long"):
        encoder.encode_ordinary(text)
    sample = text[:200_000]
    whole = len(encoder.encode_ordinary(sample))
    monkeypatch.setattr(_count, "_PIECE", 30_000)
    assert _count._encoded_length(encoder, sample) == whole
    monkeypatch.undo()
    per_line = len(encoder.encode_ordinary(line * 100)) // 100
    assert _count._encoded_length(encoder, text) == per_line * 20_000
