"""Predicted against reported cache usage (harness/capture/_usage.py): hand-written logs of
real-looking traffic, each request's reported usage held against one simulated cache at
real size, disagreements beyond the tolerance flagged and never a rule failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.capture import (
    TOLERANCE_SHARE,
    TOLERANCE_TOKENS,
    UsageComparison,
    check_requests,
    read_log,
)
from harness.capture._usage import agrees

SYSTEM = "You are a careful assistant who reads every file before answering. " * 120
"""A system prompt past every provider's minimum (about 2,000 tokens)."""


def anthropic(*turns: str, marked: bool = True) -> dict[str, Any]:
    """An Anthropic body: the long system prompt (a breakpoint on it when ``marked``), then
    user and assistant turns alternating."""
    block: dict[str, Any] = {"type": "text", "text": SYSTEM}
    if marked:
        block["cache_control"] = {"type": "ephemeral"}
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)
    ]
    return {"model": "claude-sonnet-4-5", "max_tokens": 64, "system": [block], "messages": messages}


def openai(*turns: str) -> dict[str, Any]:
    messages = [{"role": "system", "content": SYSTEM}]
    messages += [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)
    ]
    return {"model": "gpt-5", "messages": messages}


def claude_usage(read: int, written: int, uncached: int = 20) -> dict[str, int]:
    return {
        "input_tokens": uncached,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
    }


def chat_usage(prompt: int, cached: Any) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "prompt_tokens_details": {"cached_tokens": cached}}


def compared(tmp_path: Path, *lines: dict[str, Any]) -> UsageComparison | None:
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    used, ignored = read_log(path)
    return check_requests(used, ignored).usage


def predicted_read(tmp_path: Path, *bodies: dict[str, Any]) -> list[int]:
    """What the model predicts each body reads (every line reporting a usage of 0)."""
    usage = claude_usage(0, 0) if "system" in bodies[0] else chat_usage(1, 0)
    found = compared(tmp_path, *({"body": b, "usage": usage} for b in bodies))
    assert found is not None
    return [row.scaled(row.predicted.read) for row in found.rows]


def test_anthropic_turns_that_agree_with_their_reported_usage(tmp_path: Path) -> None:
    """A breakpoint on the system prompt: the first turn writes it, the second reads it;
    reported usage of the same shape agrees (the estimate scaled to each reported prompt)."""
    first, second = anthropic("hello"), anthropic("hello", "hi", "more")
    found = compared(
        tmp_path,
        {"body": first, "response": {"type": "message", "usage": claude_usage(0, 1600, 5)}},
        {"body": second, "usage": claude_usage(1600, 0, 12)},
    )
    assert found is not None
    assert [r.seq for r in found.rows] == [1, 2]
    assert found.compared == 2
    assert found.disagreements == 0, [r.disagreements for r in found.rows]
    one, two = found.rows
    assert one.predicted.read == 0
    assert one.predicted.written > 0
    assert two.predicted.read > 0
    assert two.predicted.read == one.predicted.written
    assert two.conversation == one.conversation == "conversation 1"
    assert not one.exact
    assert one.scale is not None
    assert one.fields["cache_creation_input_tokens"] == one.predicted.written


def test_anthropic_disagreements_are_flagged_both_ways(tmp_path: Path) -> None:
    """Reported 0 where the model predicts a read, and a read reported where it predicts
    none (the request has no breakpoint): both flagged, with the figures."""
    found = compared(
        tmp_path,
        {"body": anthropic("hello"), "usage": claude_usage(0, 1600, 5)},
        {"body": anthropic("hello", "hi", "more"), "usage": claude_usage(0, 0, 1612)},
        {"body": anthropic("other", marked=False), "usage": claude_usage(1500, 0, 10)},
    )
    assert found is not None
    assert found.disagreements == 2
    assert found.rows[0].disagreements == ()
    (missed,) = found.rows[1].disagreements
    assert missed.endswith("tokens read predicted, none reported")
    assert found.rows[2].disagreements == ("1,500 tokens read reported, none predicted",)


def test_openai_chat_exact_counts_agree_and_disagree(tmp_path: Path) -> None:
    """OpenAI chat: the second turn reads the first's prefix (a multiple of 128 tokens);
    reported as predicted it agrees, reported as half of it it does not."""
    first, second = openai("hello"), openai("hello", "hi", "more")
    reads = predicted_read(tmp_path / "p", first, second)
    assert reads[0] == 0
    assert reads[1] > 1024
    assert reads[1] % 128 == 0
    found = compared(
        tmp_path,
        {"body": first, "usage": chat_usage(2000, 0)},
        {
            "body": second,
            "response": {"object": "chat.completion", "usage": chat_usage(2000, reads[1])},
        },
        {"body": openai("hello", "hi", "again"), "usage": chat_usage(2000, reads[1] // 2)},
    )
    assert found is not None
    rows = found.rows
    if rows[0].exact:  # the tokens extra: no scaling
        assert rows[0].scale is None
    assert [bool(r.disagreements) for r in rows] == [False, False, True]
    assert rows[2].disagreements[0].endswith(f"read predicted, {reads[1] // 2:,} reported")
    assert rows[1].reported is not None
    assert rows[1].reported.written is None


def test_one_cache_for_the_whole_log_in_its_order(tmp_path: Path) -> None:
    """A request without usage still fills the cache (the provider saw it), and a second
    conversation reads what the first wrote: one simulated cache per log."""
    found = compared(
        tmp_path,
        {"body": anthropic("hello")},
        {"body": anthropic("another task"), "usage": claude_usage(1600, 0)},
    )
    assert found is not None
    (row,) = found.rows
    assert row.seq == 2
    assert row.predicted.read > 0
    assert not row.disagreements
    assert row.conversation == "conversation 2"


def test_minimums_apply_at_real_size(tmp_path: Path) -> None:
    """A prompt below the model's minimum caches nothing: a reported read of 0 agrees."""
    small = {
        **anthropic("hi"),
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
    }
    found = compared(
        tmp_path,
        {"body": small, "usage": claude_usage(0, 0)},
        {
            "body": {
                **small,
                "messages": [
                    *small["messages"],
                    {"role": "assistant", "content": "ok"},
                    {"role": "user", "content": "go"},
                ],
            },
            "usage": claude_usage(0, 0),
        },
    )
    assert found is not None
    assert [r.predicted.read for r in found.rows] == [0, 0]
    assert found.disagreements == 0


@pytest.mark.parametrize(
    ("usage", "problem"),
    [
        (chat_usage(10, "12"), '"prompt_tokens_details.cached_tokens" is a string'),
        (chat_usage(10, -1), '"prompt_tokens_details.cached_tokens" is -1, a negative'),
        ({"prompt_tokens": 10}, "reports no cached tokens"),
    ],
)
def test_bad_usage_values_are_not_compared_and_say_why(
    tmp_path: Path, usage: dict[str, Any], problem: str
) -> None:
    found = compared(tmp_path, {"body": openai("hello"), "usage": usage})
    assert found is not None
    (row,) = found.rows
    assert row.reported is None
    assert row.problem is not None
    assert problem in row.problem
    assert found.compared == 0
    assert found.disagreements == 0


def test_a_log_without_usage_compares_nothing(tmp_path: Path) -> None:
    assert (
        compared(tmp_path, {"body": openai("hello")}, {"body": openai("hello", "hi", "x")}) is None
    )
    assert compared(tmp_path, {"body": openai("x"), "response": {"id": "r"}}) is None


@pytest.mark.parametrize(
    ("predicted", "reported", "same"),
    [
        (0, 0, True),
        (0, 1, False),
        (1, 0, False),
        (1000, 1000 + int(TOLERANCE_SHARE * 1000 + TOLERANCE_TOKENS), True),
        (1000, 1000 + int(TOLERANCE_SHARE * 1000 + TOLERANCE_TOKENS) + 20, False),
        (10, 40, True),  # a few tokens of framing
    ],
)
def test_the_tolerance(predicted: int, reported: int, same: bool) -> None:
    assert agrees(predicted, reported) is same
    assert agrees(reported, predicted) is same


def test_an_estimate_is_scaled_only_within_reason(tmp_path: Path) -> None:
    """An estimated prompt is scaled to the reported one; one reported at a tenth of the
    prediction is no estimate's error, and the counts are compared as they are."""
    found = compared(
        tmp_path,
        {"body": anthropic("hello"), "usage": claude_usage(0, 1600, 5)},
        {"body": anthropic("hello", "hi", "x"), "usage": claude_usage(0, 0, 200)},
    )
    assert found is not None
    first, second = found.rows
    assert first.scale is not None
    assert 0.5 <= first.scale <= 2.0
    assert second.scale is None
    assert second.disagreements == (
        f"{second.predicted.read:,} tokens read predicted, none reported",
    )
