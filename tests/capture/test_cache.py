"""The fake provider's replies report the cached tokens of one simulated cache per run, in
the provider's own usage fields, driven by the official SDKs over real HTTP on loopback:
a long shared prefix is written then read, a short one is never cached, streams carry it,
parallel requests share the cache without corrupting it, and the record keeps it."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import anthropic
import openai
from google import genai
from google.genai import types

from harness.capture import FakeProvider, read_record
from harness.capture._cache import CacheUsage, Predicted
from harness.dialects import Unit, get_dialect
from harness.dialects.anthropic import AnthropicDialect
from harness.prefix import CacheSimulator, Usage, priced

from .conftest import SECRET, Serve, post_json

LONG = " ".join(
    f"Rule {i}: keep every byte of the prefix as the parent sent it." for i in range(400)
)
"""A system prompt of some 4,000 to 6,000 tokens: above every provider's minimum."""
SHORT = "You are terse."


def simulated(provider: FakeProvider) -> list[Usage]:
    """What a fresh simulated cache says of the bodies the provider recorded, sent in
    order (the model from the URL where the body names none, as the fake prices them)."""
    simulator = CacheSimulator(minimums=True)
    out = []
    for record in provider.records:
        body = record.json
        if "model" not in body and record.model is not None:
            body = {**body, "model": record.model}
        cost = priced(get_dialect(record.dialect).cache_view(body))
        out.append(simulator.send(cost.data, cost.tokens, cost.view.plan))
    return out


def anthropic_client(provider: FakeProvider) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=provider.base_url, api_key=SECRET, max_retries=0, timeout=10
    )


def openai_client(provider: FakeProvider) -> openai.OpenAI:
    return openai.OpenAI(base_url=provider.base_url, api_key=SECRET, max_retries=0, timeout=10)


def gemini_client(provider: FakeProvider) -> genai.Client:
    options = types.HttpOptions(base_url=provider.base_url, timeout=10_000)
    return genai.Client(api_key=SECRET, http_options=options)


def system(text: str) -> list[dict[str, Any]]:
    """An Anthropic system prompt with a breakpoint at its end."""
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]


def ask(sdk: anthropic.Anthropic, prompt: str, question: str) -> anthropic.types.Usage:
    message = sdk.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=64,
        system=system(prompt),  # type: ignore[arg-type]
        messages=[{"role": "user", "content": question}],
    )
    return message.usage


def test_anthropic_a_shared_prefix_is_written_then_read(serve: Serve) -> None:
    provider = serve("anthropic")
    with anthropic_client(provider) as sdk:
        first = ask(sdk, LONG, "What is rule 3?")
        second = ask(sdk, LONG, "And rule 7?")
    wrote, read = simulated(provider)
    assert wrote.written > 1_100
    assert (first.cache_creation_input_tokens, first.cache_read_input_tokens) == (wrote.written, 0)
    assert first.input_tokens == wrote.total - wrote.written
    assert second.cache_read_input_tokens == read.read == wrote.written
    assert second.cache_creation_input_tokens == 0
    assert second.input_tokens == read.total - read.read > 0


def test_anthropic_below_the_minimum_nothing_is_cached(serve: Serve) -> None:
    provider = serve("anthropic")
    with anthropic_client(provider) as sdk:
        usages = [ask(sdk, SHORT, "Hi."), ask(sdk, SHORT, "Hi again.")]
    for usage, expected in zip(usages, simulated(provider), strict=True):
        assert expected.below_minimum == 1
        assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)
        assert usage.input_tokens == expected.total > 0


def test_anthropic_stream_carries_it_in_message_start(serve: Serve) -> None:
    provider = serve("anthropic")
    usages = []
    with anthropic_client(provider) as sdk:
        for question in ("What is rule 3?", "And rule 7?"):
            with sdk.messages.stream(
                model="claude-sonnet-4-5",
                max_tokens=64,
                system=system(LONG),  # type: ignore[arg-type]
                messages=[{"role": "user", "content": question}],
            ) as stream:
                events = list(stream)
                usages.append(stream.get_final_message().usage)
            (start,) = [e for e in events if e.type == "message_start"]
            assert start.message.usage.cache_creation_input_tokens is not None
    wrote, read = simulated(provider)
    assert usages[0].cache_creation_input_tokens == wrote.written > 1_100
    assert usages[1].cache_read_input_tokens == read.read == wrote.written
    assert all(record.stream for record in provider.records)


FIRST = [{"role": "user", "content": "What is rule 3?"}]
NEXT = [
    *FIRST,
    {"role": "assistant", "content": "Rule 3 says so."},
    {"role": "user", "content": "7?"},
]
"""A conversation's first turn and its next: the next repeats the first, so it can read
what the first wrote at its end (OpenAI and Gemini write where a request ends)."""


def chat(sdk: openai.OpenAI, turns: list[dict[str, Any]], **options: Any) -> Any:
    return sdk.chat.completions.create(
        model="gpt-5.1", messages=[{"role": "system", "content": LONG}, *turns], **options
    )


def test_openai_chat_reports_cached_tokens(serve: Serve) -> None:
    provider = serve("openai")
    with openai_client(provider) as sdk:
        first = chat(sdk, FIRST).usage
        second = chat(sdk, NEXT).usage
    wrote, read = simulated(provider)
    assert first.prompt_tokens == wrote.total
    assert first.prompt_tokens_details.cached_tokens == 0
    assert second.prompt_tokens == read.total
    assert second.prompt_tokens_details.cached_tokens == read.read > 1_024
    assert second.total_tokens == second.prompt_tokens + second.completion_tokens


def test_openai_chat_stream_reports_it_in_the_usage_chunk(serve: Serve) -> None:
    provider = serve("openai")
    finals = []
    with openai_client(provider) as sdk:
        for turns in (FIRST, NEXT):
            options = {"stream": True, "stream_options": {"include_usage": True}}
            chunks = list(chat(sdk, turns, **options))
            assert all(c.usage is None for c in chunks[:-1])
            finals.append(chunks[-1].usage)
    _, read = simulated(provider)
    assert finals[0].prompt_tokens_details.cached_tokens == 0
    assert finals[1].prompt_tokens_details.cached_tokens == read.read > 1_024


def test_openai_chat_below_the_minimum_nothing_is_cached(serve: Serve) -> None:
    provider = serve("openai")
    with openai_client(provider) as sdk:
        for turns in (FIRST, NEXT):
            messages = [{"role": "system", "content": SHORT}, *turns]
            usage = sdk.chat.completions.create(model="gpt-5.1", messages=messages).usage
            assert usage is not None
            assert usage.prompt_tokens_details is not None
            assert usage.prompt_tokens_details.cached_tokens == 0
    assert all(u.read == 0 and u.total < 1_024 for u in simulated(provider))


def test_responses_report_cached_tokens_streamed_or_not(serve: Serve) -> None:
    provider = serve("openai-responses")
    with openai_client(provider) as sdk:
        first = sdk.responses.create(model="gpt-5.1", instructions=LONG, input=FIRST)
        events = list(
            sdk.responses.create(model="gpt-5.1", instructions=LONG, input=NEXT, stream=True)
        )
    (completed,) = [e for e in events if e.type == "response.completed"]
    wrote, read = simulated(provider)
    assert first.usage is not None
    assert first.usage.input_tokens == wrote.total
    assert first.usage.input_tokens_details.cached_tokens == 0
    second = completed.response.usage
    assert second is not None
    assert second.input_tokens == read.total
    assert second.input_tokens_details.cached_tokens == read.read > 1_024


def test_responses_a_continuation_reads_what_it_continues(serve: Serve) -> None:
    """A body sent with ``previous_response_id`` is priced as the provider reads it: the
    continued input and answer ahead of its own."""
    provider = serve("openai-responses")
    with openai_client(provider) as sdk:
        first = sdk.responses.create(model="gpt-5.1", instructions=LONG, input=FIRST)
        second = sdk.responses.create(
            model="gpt-5.1", instructions=LONG, input="7?", previous_response_id=first.id
        )
    assert second.usage is not None
    assert first.usage is not None
    assert second.usage.input_tokens > first.usage.input_tokens
    assert second.usage.input_tokens_details.cached_tokens > 1_024


def gemini_turns(turns: list[dict[str, Any]]) -> list[types.Content]:
    roles = {"user": "user", "assistant": "model"}
    return [
        types.Content(role=roles[t["role"]], parts=[types.Part(text=t["content"])]) for t in turns
    ]


def test_gemini_reports_cached_content_tokens_streamed_or_not(serve: Serve) -> None:
    provider = serve("gemini")
    sdk = gemini_client(provider)
    config = types.GenerateContentConfig(system_instruction=LONG)
    first = sdk.models.generate_content(
        model="gemini-2.5-flash", contents=gemini_turns(FIRST), config=config
    ).usage_metadata
    chunks = list(
        sdk.models.generate_content_stream(
            model="gemini-2.5-flash", contents=gemini_turns(NEXT), config=config
        )
    )
    second = chunks[-1].usage_metadata
    wrote, read = simulated(provider)
    assert first is not None
    assert second is not None
    assert (first.prompt_token_count, first.cached_content_token_count) == (wrote.total, 0)
    assert second.prompt_token_count == read.total
    assert second.cached_content_token_count == read.read > 2_048
    assert all(c.usage_metadata is None for c in chunks[:-1])


def test_gemini_prices_by_the_model_in_the_url(serve: Serve) -> None:
    """The same conversation of some 3,000 tokens, in a run of its own for each model:
    cached for Gemini 2.5 Flash (minimum 2,048), not for Gemini 3.8 Flash (4,096)."""
    prompt = LONG[: len(LONG) // 2]
    config = types.GenerateContentConfig(system_instruction=prompt)
    cached = {}
    for model in ("gemini-2.5-flash", "gemini-3.8-flash"):
        sdk = gemini_client(serve("gemini", record=None))
        for turns in (FIRST, NEXT):
            usage = sdk.models.generate_content(
                model=model, contents=gemini_turns(turns), config=config
            ).usage_metadata
            assert usage is not None
            assert usage.prompt_token_count is not None
            assert 2_048 < usage.prompt_token_count < 4_096
        cached[model] = usage.cached_content_token_count
    assert cached["gemini-2.5-flash"]
    assert cached["gemini-3.8-flash"] == 0


def test_parallel_requests_share_one_cache_uncorrupted(serve: Serve) -> None:
    """Requests from many threads at once: exactly one writes the shared prefix, every
    other reads all of it, and each record keeps the usage its reply reported."""
    provider = serve("anthropic")
    replies: dict[int, Any] = {}
    start = threading.Barrier(8)

    def send(i: int) -> None:
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "system": system(LONG),
            "messages": [{"role": "user", "content": f"Question {i}?"}],
        }
        start.wait()
        replies[i] = post_json(provider, "/v1/messages", body)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    usages = [answer["usage"] for status, answer in replies.values() if status == 200]
    assert len(usages) == 8
    writes = [u["cache_creation_input_tokens"] for u in usages if u["cache_creation_input_tokens"]]
    assert len(writes) == 1
    (written,) = writes
    assert written > 1_100
    assert sorted(u["cache_read_input_tokens"] for u in usages) == [0] + [written] * 7
    for record in provider.records:
        (i,) = [i for i in replies if record.json["messages"][0]["content"] == f"Question {i}?"]
        assert record.usage == replies[i][1]["usage"]


def test_the_record_file_keeps_each_answer_s_usage(serve: Serve) -> None:
    provider = serve("anthropic")
    with anthropic_client(provider) as sdk:
        usages = [ask(sdk, LONG, "Rule 3?"), ask(sdk, LONG, "Rule 7?")]
    provider.stop()
    assert provider.record_path is not None
    records = read_record(provider.record_path)
    assert [dict(r.usage or {}) for r in records] == [
        u.model_dump(exclude_none=True) for u in usages
    ]
    assert records[1].usage is not None
    assert records[1].usage["cache_read_input_tokens"] > 1_100


def test_a_body_the_dialect_cannot_read_is_answered_as_before(serve: Serve) -> None:
    """No cache fields, the input estimated from the body's size, and the record's note
    says why."""
    provider = serve("anthropic")
    body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": "not a list"}
    status, answer = post_json(provider, "/v1/messages", body)
    assert status == 200
    assert set(answer["usage"]) == {"input_tokens", "output_tokens"}
    (record,) = provider.records
    assert record.usage == answer["usage"]
    assert record.note is not None
    assert "could not read" in record.note


class CacheModelFails(AnthropicDialect):
    """An extension dialect whose cache model has a bug: its units cannot be rendered."""

    def units(self, body: Mapping[str, Any]) -> tuple[Unit, ...]:
        raise ValueError("no units for this body")


def test_a_body_that_cannot_be_priced_says_why() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    said = CacheUsage().send(CacheModelFails(), body)
    assert said == "the anthropic cache model could not price the body (no units for this body)"


def test_one_cache_per_usage_object(serve: Serve) -> None:
    """Two fake providers (two runs) never share entries: the second's first request
    writes again."""
    reports: list[Sequence[Predicted | str]] = []
    anthropic_body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 8,
        "system": system(LONG),
        "messages": [{"role": "user", "content": "Rule 3?"}],
    }
    for _ in range(2):
        cache = CacheUsage()
        reports.append([cache.send(get_dialect("anthropic"), anthropic_body) for _ in range(2)])
    for first, second in reports:
        assert isinstance(first, Predicted)
        assert isinstance(second, Predicted)
        assert (first.read, second.written) == (0, 0)
        assert second.read == first.written > 1_100
        assert second.fields["cache_read_input_tokens"] == second.read
