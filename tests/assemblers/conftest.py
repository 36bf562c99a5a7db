"""Rendering assembled requests in each dialect, for the assemblers' wire-level tests."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import pytest

from harness.dialects import get_dialect
from harness.model import Request

DIALECTS = ("gemini", "openai", "anthropic")


@dataclass(frozen=True)
class Wire:
    """One dialect: render a neutral request and read its prefix segments back."""

    name: str

    def body(self, request: Request) -> bytes:
        return get_dialect(self.name).render(request)

    def segments(self, request: Request) -> list[tuple[str, bytes]]:
        """(name, compact JSON with key order kept) of each prefix segment, in cache order."""
        parsed = get_dialect(self.name).parse(orjson.loads(self.body(request)))
        return [(s.name, orjson.dumps(s.value)) for s in parsed.segments]

    def starts_with(self, child: Request, parent: Request) -> bool:
        """Whether the child's segment list starts with all of the parent's segments."""
        ours, theirs = self.segments(child), self.segments(parent)
        return ours[: len(theirs)] == theirs


@pytest.fixture(scope="session", params=DIALECTS)
def wire(request: pytest.FixtureRequest) -> Wire:
    return Wire(request.param)
