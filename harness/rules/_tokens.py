"""Real token counts of lost prefix bytes, for the dialects whose provider uses OpenAI's
encodings (``Facts.tokenizer``), when the ``tokens`` extra is installed.

The cost of a finding is measured in bytes of prefix stream and estimated at
``BYTES_PER_TOKEN`` bytes a token. With the ``tokens`` extra (``pip install
'prefix-harness[tokens]'``: ``bpe-openai``, which ships its vocabularies, so nothing is
downloaded at run time) the same bytes are also counted in the model's OpenAI encoding:
``o200k_base`` for current models (GPT-4o, GPT-4.1, GPT-5, the o-series), ``cl100k_base`` for
GPT-4 and GPT-3.5. The count is of the prefix stream's text (compact JSON with its segment
names), as the estimate is, not of the provider's own rendering of the request.
Without the extra, or in another dialect, ``count`` says None and nothing else changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from ..dialects import all_dialects
from ..prefix import Frame
from ._body import Body
from ._report import Cost

__all__ = [
    "count",
    "counted",
    "encoding_for",
    "span_bytes",
    "tokenizer_available",
]

TOKENIZER = "openai"
"""The family of encodings the extra knows (``Facts.tokenizer``)."""


def _counted(dialect: str) -> bool:
    """Whether ``dialect``'s provider uses the encodings the extra knows."""
    found = all_dialects().get(dialect)
    return found is not None and found.facts.tokenizer == TOKENIZER


_CL100K = re.compile(r"^(gpt-4(?![o.])|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada)")
"""Models of the ``cl100k_base`` encoding: GPT-4 (not GPT-4o, GPT-4.1, GPT-4.5), GPT-3.5,
the embedding models; every other OpenAI model uses ``o200k_base``."""


def encoding_for(dialect: str, model: Any) -> str | None:
    """The OpenAI encoding of ``model`` in ``dialect``; None outside the OpenAI dialects."""
    if not _counted(dialect):
        return None
    name = model.rsplit("/", 1)[-1].lower() if isinstance(model, str) else ""
    return "cl100k_base" if _CL100K.match(name) else "o200k_base"


@cache
def _encoding(name: str) -> Any:
    """The tokenizer of encoding ``name``, or None when the extra is not installed (imported
    late and once: loading the vocabularies takes seconds)."""
    try:
        import bpe_openai
    except ImportError:
        return None
    return bpe_openai.get_encoding(name)


def tokenizer_available() -> bool:
    """Whether the ``tokens`` extra is installed."""
    return _encoding("o200k_base") is not None


def count(data: bytes, dialect: str, model: Any) -> tuple[int, str] | None:
    """How many tokens ``data`` (UTF-8 text) is in the encoding of ``model``, and that
    encoding's name; None without the extra or outside the OpenAI dialects."""
    name = encoding_for(dialect, model)
    encoding = _encoding(name) if name is not None else None
    if encoding is None or name is None:
        return None
    return len(encoding.encode_ordinary(data.decode("utf-8", "replace"))), name


def span_bytes(frames: Sequence[Frame], start: int, end: int) -> bytes:
    """The bytes ``start`` to ``end`` of the stream these frames make up."""
    out = []
    for frame in frames:
        if frame.end <= start or frame.start >= end:
            continue
        data = frame.data
        out.append(data[max(0, start - frame.start) : end - frame.start])
    return b"".join(out)


def counted(cost: Cost, body: Body, start: int, dialect: str) -> Cost:
    """``cost`` with the real token count of the bytes it loses, ``body``'s prefix stream
    from ``start`` on, where the extra can count them (else ``cost`` as it is)."""
    if not cost.lost_bytes or not _counted(dialect) or not tokenizer_available():
        return cost
    data = span_bytes(body.frames, start, start + cost.lost_bytes)
    found = count(data, dialect, body.parsed.settings.get("model"))
    if found is None:
        return cost
    return replace(cost, real_tokens=found[0], encoding=found[1])
