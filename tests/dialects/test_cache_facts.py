"""The dated cache facts: model names find their row, unknown names the reference model, and
every figure has a dated source."""

from __future__ import annotations

import re

import pytest

from harness.dialects import CacheFacts
from harness.dialects._openai_facts import DEEPSEEK_CACHE as DEEPSEEK_FACTS
from harness.dialects._openai_facts import OPENAI_CACHE as OPENAI_FACTS
from harness.dialects._openai_facts import is_deepseek
from harness.dialects.anthropic._models import CACHE as ANTHROPIC_FACTS
from harness.dialects.gemini._models import CACHE as GEMINI_FACTS

ALL = (ANTHROPIC_FACTS, OPENAI_FACTS, GEMINI_FACTS, DEEPSEEK_FACTS)


@pytest.mark.parametrize(
    ("facts", "name", "label", "minimum"),
    [
        (ANTHROPIC_FACTS, "claude-sonnet-4-6", "Claude Sonnet 4.x / 3.7", 1024),
        (ANTHROPIC_FACTS, "claude-opus-4-7", "Claude Opus 4.7", 2048),
        (ANTHROPIC_FACTS, "claude-opus-4-6-20260101", "Claude Opus 4.5 / 4.6", 4096),
        (ANTHROPIC_FACTS, "claude-haiku-4-5", "Claude Haiku 4.5", 4096),
        (ANTHROPIC_FACTS, "anthropic/claude-opus-5", "Claude Opus 5", 512),
        (ANTHROPIC_FACTS, "claude-sonnet-5", "Claude Sonnet 5", 1024),
        (ANTHROPIC_FACTS, "claude-3-5-haiku-20241022", "Claude Haiku 3.5", 2048),
        (OPENAI_FACTS, "gpt-5.6-terra", "GPT-5.6 Terra", 1024),
        (OPENAI_FACTS, "gpt-5.4-mini", "GPT-5.4 mini", 1024),
        (OPENAI_FACTS, "gpt-4o-2024-08-06", "GPT-4o", 1024),
        (GEMINI_FACTS, "models/gemini-2.5-flash", "Gemini 2.5 Flash", 2048),
        (DEEPSEEK_FACTS, "deepseek-chat", "DeepSeek V4.1 Flash", 0),
    ],
)
def test_a_model_finds_its_row(facts: CacheFacts, name: str, label: str, minimum: int) -> None:
    found, known = facts.model(name)
    assert known
    assert (found.label, found.minimum_tokens) == (label, minimum)


@pytest.mark.parametrize("facts", ALL)
@pytest.mark.parametrize("name", ["quill-large-2", None, 3])
def test_an_unknown_model_takes_the_reference(facts: CacheFacts, name: object) -> None:
    assert facts.model(name) == (facts.reference, False)


@pytest.mark.parametrize("facts", ALL)
def test_every_figure_has_a_dated_source(facts: CacheFacts) -> None:
    for model in (*facts.models, facts.reference):
        assert model.source.url.startswith("https://")
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", model.source.as_of)
        assert 0 <= model.prices.cached < model.prices.uncached
        assert model.chars_per_token > 0
    assert facts.sources


def test_saved_is_the_price_difference_per_million() -> None:
    prices = ANTHROPIC_FACTS.reference.prices
    assert prices.saved(1_000_000) == pytest.approx(prices.uncached - prices.cached)


@pytest.mark.parametrize(("model", "deepseek"), [("deepseek-chat", True), ("gpt-5", False)])
def test_deepseek_models_are_recognised(model: str, deepseek: bool) -> None:
    assert is_deepseek(model) is deepseek
