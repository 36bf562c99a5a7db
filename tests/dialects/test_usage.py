"""Reported usage (harness/dialects/_usage.py and each dialect's ``reported_usage``): a
provider's usage object read back in the names ``usage_fields`` writes, and values that
are no token count refused with one sentence naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import ReportedUsage, UsageError, all_dialects, get_dialect
from harness.dialects._usage import count_field

MODELS = {"anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash"}


def nest(fields: dict[str, int]) -> dict[str, Any]:
    """Dotted names as the nested object a response carries."""
    out: dict[str, Any] = {}
    for name, value in fields.items():
        *parents, last = name.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out


@pytest.mark.parametrize("model", [None, "deepseek-chat"])
@pytest.mark.parametrize("name", sorted(all_dialects()))
def test_reported_usage_reads_back_what_usage_fields_writes(name: str, model: str | None) -> None:
    """For every dialect (and a DeepSeek model on the OpenAI wires): a response carrying
    the predicted usage reads back as the same prompt, read and (where reported) written."""
    dialect = get_dialect(name)
    body = {"model": model or MODELS.get(name, "gpt-5")}
    fields = nest(dialect.usage_fields(2000, 1536, 300, body))
    # Gemini's names start at the response (usageMetadata.*), the others' inside ``usage``
    response = fields if dialect.usage_key in fields else {dialect.usage_key: fields}
    usage = dialect.response_usage(response)
    assert isinstance(usage, dict)
    found = dialect.reported_usage(usage, body)
    assert found.read == 1536
    assert found.total == 2000
    reports_writes = name != "gemini" and not (name == "openai" and model)
    assert found.written == (300 if reports_writes else None)
    assert found.fields  # the values as reported, in the provider's names


def test_anthropics_prompt_is_its_three_counts_together() -> None:
    usage = {"input_tokens": 7, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 900}
    found = get_dialect("anthropic").reported_usage(usage, {})
    assert found == ReportedUsage(1007, 900, 100, usage)


def test_gemini_leaves_out_a_cached_count_of_zero() -> None:
    """Gemini's ``usageMetadata`` has no ``cachedContentTokenCount`` when nothing was read:
    with the prompt's count there, the read is 0; without either, nothing is reported."""
    gemini = get_dialect("gemini")
    assert gemini.reported_usage({"promptTokenCount": 50}, {}).read == 0
    with pytest.raises(UsageError, match="reports no cached tokens"):
        gemini.reported_usage({"candidatesTokenCount": 5}, {})
    assert gemini.response_usage({"usageMetadata": {"promptTokenCount": 1}}) == {
        "promptTokenCount": 1
    }


def test_openai_usage_without_the_cached_count_is_not_compared() -> None:
    """A chat usage with no ``prompt_tokens_details.cached_tokens`` (an OpenAI-compatible
    server that reports none) says nothing of the cache: an error, not a read of 0."""
    with pytest.raises(UsageError, match=r'no "prompt_tokens_details\.cached_tokens"'):
        get_dialect("openai").reported_usage({"prompt_tokens": 10}, {"model": "gpt-5"})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("12", "is a string ('12'), not a token count"),
        (-3, "is -3, a negative token count"),
        (True, "is a boolean, not a token count"),
        (1.5, "is 1.5, not a whole number of tokens"),
        ([1], "is an array, not a token count"),
    ],
)
def test_a_value_that_is_no_token_count_is_one_sentence(value: Any, message: str) -> None:
    usage = {"input_tokens": 1, "cache_read_input_tokens": value}
    with pytest.raises(UsageError) as raised:
        get_dialect("anthropic").reported_usage(usage, {})
    assert str(raised.value) == f'"cache_read_input_tokens" {message}'


def test_count_field_reads_dotted_names_and_whole_floats() -> None:
    usage = {"a": {"b": 4.0}, "c": None, "d": 3}
    assert count_field(usage, "a.b") == 4
    assert count_field(usage, "c") is None
    assert count_field(usage, "x.y") is None
    with pytest.raises(UsageError, match=r'"d\.e" is not readable'):
        count_field(usage, "d.e")
