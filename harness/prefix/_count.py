"""Tokens of rendered units: counted by the provider's tokenizer where one ships offline (the
``tokens`` extra: OpenAI's encodings), else estimated from the characters at the model's
published characters per token, and said to be an estimate.

What is counted is each unit's canonical JSON, not the provider's own template around it:
both sides of a comparison are counted alike, so a loss is measured in the same units as the
prefix it is a share of.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from itertools import accumulate
from typing import Any

from ..dialects import ModelFacts, Unit

__all__ = ["count_units", "tokenizer"]


@cache
def tokenizer(encoding: str) -> Any:
    """The tokenizer of an OpenAI encoding, or None without the ``tokens`` extra (loaded
    once: reading a vocabulary takes about a second)."""
    try:
        import bpe_openai
    except ImportError:
        return None
    return bpe_openai.get_encoding(encoding)


def count_units(units: Sequence[Unit], model: ModelFacts) -> tuple[tuple[int, ...], bool]:
    """The running token count after each unit (the first entry 0: the empty prefix), and
    whether it was counted exactly (else estimated)."""
    encoder = tokenizer(model.encoding) if model.encoding is not None else None
    if encoder is None:
        per = model.chars_per_token
        sizes = [math.ceil(len(u.data.decode("utf-8", "replace")) / per) for u in units]
        return tuple(accumulate(sizes, initial=0)), False
    sizes = [_encoded_length(encoder, u.data.decode("utf-8", "replace")) for u in units]
    return tuple(accumulate(sizes, initial=0)), True


_PIECE = 250_000
"""Characters a tokenizer call takes at most: the tokenizer refuses a text of 1,000,000
characters or more, so a longer unit (a pasted file) is counted piece by piece."""


def _encoded_length(encoder: Any, text: str) -> int:
    """The tokens of ``text``; a long text is cut before a space or a line break near each
    ``_PIECE`` characters, where the tokenizer's own pre-splitting parts words anyway, so
    the sum is the whole text's count or within a token a piece of it."""
    count = 0
    start = 0
    while len(text) - start > _PIECE:
        end = start + _PIECE
        cut = max(text.rfind(" ", end - 1000, end), text.rfind("\n", end - 1000, end))
        end = cut if cut > start else end
        count += len(encoder.encode_ordinary(text[start:end]))
        start = end
    return count + len(encoder.encode_ordinary(text[start:]))
