"""The spellings Gemini renders as one prompt (docs/cache-model.md), and those it documents
no equivalence for."""

from __future__ import annotations

from typing import Final

from .._equivalence import Equivalence

__all__ = ["CACHING", "CONTENT", "EQUIVALENCES"]

CONTENT: Final = "https://ai.google.dev/api/caching#Content"
CACHING: Final = "https://ai.google.dev/gemini-api/docs/caching"

EQUIVALENCES: Final = (
    Equivalence(
        "json-spelling",
        "the body's whitespace and string escapes",
        "inferred",
        "the API parses the body before it renders the prompt",
        CACHING,
    ),
    Equivalence(
        "envelope-key-order",
        "the key order of a content or a part",
        "inferred",
        "the API reads these objects by field name; parameters, args and responses keep "
        "their key order",
        CACHING,
    ),
    Equivalence(
        "missing-args",
        "a call without args against one with empty args",
        "undocumented",
        "Gemini documents no default for a missing args",
        CONTENT,
    ),
    Equivalence(
        "missing-role",
        "a content without a role against one with role user",
        "undocumented",
        'the role "can be left blank or unset"; that it then reads as user is not documented',
        CONTENT,
    ),
)
