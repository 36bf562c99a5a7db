"""The capture summary: counts per mark and per status, refusals listed."""

from __future__ import annotations

from harness.capture import Reply, summarize

from .test_record import draft


def test_empty() -> None:
    assert summarize([]) == "recorded 0 requests\n"


def test_counts_marks_statuses_and_lists_refusals() -> None:
    records = [
        draft(seq=1, mark="parent", rule=0, reply=Reply("a")),
        draft(seq=2, mark="fork-A", rule=1, reply=Reply("b")),
        draft(seq=3, mark="fork-A", rule=1, reply=Reply("b")),
        draft(seq=4, reply=Reply("default")),
        draft(seq=5, status=400, error="the request body is not valid JSON"),
        draft(seq=6, reply=Reply("x"), note="the openai dialect could not read the body"),
    ]
    assert summarize(records) == (
        "recorded 6 requests: parent 1, fork-A 2, (default reply) 2, (not a model call) 1"
        " · status 200 5, 400 1\n"
        "  #5 POST /v1/chat/completions: 400 the request body is not valid JSON\n"
        "  #6 note: the openai dialect could not read the body\n"
    )


def test_counts_dialects_when_a_provider_served_more_than_one() -> None:
    records = [
        draft(seq=1, reply=Reply("a")),
        draft(seq=2, reply=Reply("b"), dialect="openai-responses", path="/v1/responses"),
        draft(seq=3, reply=Reply("c"), dialect="openai-responses", path="/v1/responses"),
    ]
    assert summarize(records) == (
        "recorded 3 requests: (default reply) 3 · status 200 3 · openai 1, openai-responses 2\n"
    )
    assert "openai-responses 2" not in summarize(records[1:])
