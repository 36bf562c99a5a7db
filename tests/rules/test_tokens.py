"""Real token counts with the tokens extra, and nothing changed without it
(harness/rules/_tokens.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import orjson
import pytest

from harness.reports import rules_json
from harness.reports._rules_text import cost_text
from harness.rules import Cost, run_subject
from harness.rules import _tokens as tokens
from harness.subjects import ReferenceSubject

from .bad_subjects import CASES
from .scenarios import BY_ID
from .support import context, finding, report


@pytest.fixture
def without_the_extra(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``import bpe_openai`` fails, as where the extra is not installed."""
    tokens._encoding.cache_clear()
    monkeypatch.setitem(sys.modules, "bpe_openai", None)  # None in sys.modules: ImportError
    yield
    tokens._encoding.cache_clear()


@pytest.mark.parametrize(
    ("dialect", "model", "encoding"),
    [
        ("openai", "gpt-4o-mini", "o200k_base"),
        ("openai", "gpt-4.1", "o200k_base"),
        ("openai-responses", "gpt-5-codex", "o200k_base"),
        ("openai-responses", "o3", "o200k_base"),
        ("openai", "gpt-4", "cl100k_base"),
        ("openai", "gpt-4-turbo-2024-04-09", "cl100k_base"),
        ("openai", "gpt-3.5-turbo", "cl100k_base"),
        ("openai", "openai/gpt-4-0613", "cl100k_base"),
        ("openai", None, "o200k_base"),  # no model named: the current models' encoding
        ("anthropic", "gpt-4o", None),  # not an OpenAI dialect
        ("gemini", None, None),
    ],
)
def test_encoding_for(dialect: str, model: str | None, encoding: str | None) -> None:
    assert tokens.encoding_for(dialect, model) == encoding


def test_real_counts_with_the_extra() -> None:
    assert tokens.tokenizer_available()
    assert tokens.count(b"Hello, world!", "openai", "gpt-4o") == (4, "o200k_base")
    assert tokens.count(b"Hello, world!", "openai", "gpt-4") == (4, "cl100k_base")
    assert tokens.count("日本語".encode(), "openai", "gpt-4o") is not None
    assert tokens.count(b"Hello", "anthropic", "claude") is None


def test_an_openai_finding_reports_both_counts() -> None:
    found = finding(CASES["tool-order"].subject, "fork-model-calls", "openai", "tools-identical")
    cost = found.cost
    assert cost is not None
    assert cost.encoding == "o200k_base"
    assert cost.real_tokens is not None
    assert 0 < cost.real_tokens <= cost.lost_bytes
    # the count is of exactly the parent's prefix bytes the child loses
    ctx = context(CASES["tool-order"].subject, "fork-model-calls", "openai")
    assert ctx.parent is not None
    start = ctx.parent.stream.length - cost.lost_bytes
    lost = tokens.span_bytes(ctx.parent.frames, start, ctx.parent.stream.length)
    assert len(lost) == cost.lost_bytes
    assert tokens.count(lost, "openai", None) == (cost.real_tokens, "o200k_base")
    assert cost_text(cost).endswith(
        f"(~{cost.tokens:,} tokens at ~4 bytes/token; {cost.real_tokens:,} tokens in o200k_base)"
    )
    reports = [report(CASES["tool-order"].subject, "fork-model-calls", "openai")]
    (entry,) = orjson.loads(rules_json(reports))["reports"]
    tools = next(f for f in entry["findings"] if f["rule"] == "tools-identical")
    assert (tools["cost"]["tokens_real"], tools["cost"]["tokens_encoding"]) == (
        cost.real_tokens,
        "o200k_base",
    )


def test_other_dialects_keep_the_estimate_alone() -> None:
    found = finding(CASES["tool-order"].subject, "fork-model-calls", "anthropic", "tools-identical")
    assert found.cost is not None
    assert (found.cost.real_tokens, found.cost.encoding) == (None, None)
    assert cost_text(found.cost).endswith("tokens at ~4 bytes/token)")


@pytest.mark.usefixtures("without_the_extra")
def test_without_the_extra_nothing_changes() -> None:
    assert not tokens.tokenizer_available()
    assert tokens.count(b"Hello, world!", "openai", "gpt-4o") is None
    # run afresh, not from the cache of the other tests
    subject = CASES["tool-order"].subject
    (fresh,) = run_subject(subject, [BY_ID["fork-model-calls"]], ["openai"])
    cost = fresh.finding("tools-identical").cost
    assert cost is not None
    assert (cost.real_tokens, cost.encoding) == (None, None)
    assert cost_text(cost) == cost_text(Cost(cost.lost_bytes, cost.child_bytes))
    (entry,) = orjson.loads(rules_json([fresh]))["reports"]
    tools = next(f for f in entry["findings"] if f["rule"] == "tools-identical")
    assert (tools["cost"]["tokens_real"], tools["cost"]["tokens_encoding"]) == (None, None)


def test_span_bytes_crosses_frames() -> None:
    ctx = context(CASES["tool-order"].subject, "fork-model-calls", "openai")
    assert ctx.parent is not None
    whole = bytes(ctx.parent.stream)
    frames = ctx.parent.frames
    middle = frames[1].start + 3
    assert tokens.span_bytes(frames, 5, middle) == whole[5:middle]
    assert tokens.span_bytes(frames, 0, len(whole)) == whole
    assert tokens.span_bytes(frames, 7, 7) == b""


def test_only_failures_are_counted() -> None:
    """Counting is slow (~0.3 s a megabyte): the costs of warnings and accepted divergences,
    which a conforming run has many of, keep the estimate alone."""
    reports = run_subject(ReferenceSubject(), BY_ID.values(), ["openai", "openai-responses"])
    costed = [f for r in reports for f in r.findings if f.cost is not None]
    assert any(f.status != "fail" for f in costed), "no warning with a cost to check"
    for f in costed:
        if f.status != "fail":
            assert (f.cost.real_tokens, f.cost.encoding) == (None, None), f
