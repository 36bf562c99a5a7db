"""How strongly a body looks like a OpenAI Responses one (_detect)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings

from harness.dialects import DialectError, detect_dialect
from harness.dialects.anthropic import DIALECT as ANTHROPIC
from harness.dialects.openai import DIALECT as OPENAI_CHAT
from harness.dialects.openai_responses import DIALECT
from harness.model import (
    Message,
    Preset,
    Request,
    Text,
)

from .support import JUNK, codex_like


def test_detect_counts_responses_features_and_wins_over_chat() -> None:
    assert DIALECT.detect(codex_like()) >= 5
    best, sure = detect_dialect(codex_like())
    assert best is DIALECT
    assert sure
    assert DIALECT.detect({"input": "hi"}) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": "hi"}], "input": []},
        {"contents": [], "input": []},
        {"model": "m"},
        orjson.loads(
            OPENAI_CHAT.render(Request(Preset(system=("s",)), (Message("user", (Text("x"),)),)))
        ),
        orjson.loads(
            ANTHROPIC.render(Request(Preset(system=("s",)), (Message("user", (Text("x"),)),)))
        ),
    ],
)
def test_detect_is_zero_on_other_dialects(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0


@settings(max_examples=200, deadline=None)
@given(JUNK.map(lambda v: {"input": v if isinstance(v, list) else [v]}))
@example({"input": [{"type": -9223372036854775809}]})  # beyond 64 bits, in an error message
def test_detect_and_parse_never_crash_on_junk_items(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    assert DIALECT.detect(body) >= 1
    assert body == before
    with contextlib.suppress(DialectError):
        DIALECT.parse(body).request  # noqa: B018 (the conversion is the test)
    DIALECT.cache_marks(body)


def test_detect_never_fails_on_a_part_type_of_another_json_type() -> None:
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": []}]}]}
    assert DIALECT.detect(body) >= 1
    assert detect_dialect(body)[0] is DIALECT
