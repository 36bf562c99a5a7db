"""The matcher: each condition, first match wins, ``times``, the default, and counting
under concurrency."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from harness.capture import Matcher, Reply, facts_of, parse_script
from harness.capture._match import holds
from harness.capture._script import When
from harness.model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Text,
)

TAG = "<fork-boilerplate>"


def user(*parts: Any) -> Message:
    return Message("user", tuple(Text(p) if isinstance(p, str) else p for p in parts))


def model(*parts: Any) -> Message:
    return Message("model", tuple(Text(p) if isinstance(p, str) else p for p in parts))


def req(*history: Message, system: tuple[str, ...] = ("You are helpful.",)) -> Request:
    return Request(Preset(system=system), history)


CALL = FunctionCall("fork", FrozenDict({"directive": "look at src/", "n": 1}), id="c1")
PARENT_FIRST = req(user("Refactor the parser."))
PARENT_AFTER_FORK = req(
    user("Refactor the parser."),
    model("Forking.", CALL),
    user(FunctionResponse("fork", "started", id="c1")),
)
CHILD = req(
    user("Refactor the parser."),
    model("Forking.", CALL),
    user(FunctionResponse("fork", "started", id="c1"), f"{TAG} rules </fork-boilerplate>"),
    model("ok"),
    user("Begin."),
)


def answer(script: dict[str, Any], request: Request | None) -> tuple[int | None, str | None]:
    result = Matcher(parse_script(script)).answer(request)
    return result.rule, result.mark


def test_facts() -> None:
    facts = facts_of(CHILD)
    assert facts.turn == 3
    assert facts.last_user_text == "Begin."
    assert facts.system_text == "You are helpful."
    assert "look at src/" in facts.history_text
    assert "fork" in facts.history_text
    assert "started" in facts.history_text
    assert facts.last_user_tool_results == frozenset()
    assert facts_of(PARENT_AFTER_FORK).last_user_tool_results == {"fork"}
    assert facts_of(req()).turn == 1


@pytest.mark.parametrize(
    ("when", "request_", "expected"),
    [
        (When(turn=1), PARENT_FIRST, True),
        (When(turn=2), PARENT_FIRST, False),
        (When(turn=2), PARENT_AFTER_FORK, True),
        (When(first=True), PARENT_FIRST, True),
        (When(first=True), PARENT_AFTER_FORK, False),
        (When(first=False), PARENT_AFTER_FORK, True),
        (When(history_contains="Refactor"), PARENT_FIRST, True),
        (When(history_contains="look at src/"), PARENT_AFTER_FORK, True),
        (When(history_contains="started"), PARENT_AFTER_FORK, True),
        (When(history_contains="nowhere"), CHILD, False),
        (When(history_contains="helpful"), PARENT_FIRST, False),
        (When(last_user_contains="Begin"), CHILD, True),
        (When(last_user_contains="Refactor"), CHILD, False),
        (When(system_contains="helpful"), PARENT_FIRST, True),
        (When(system_contains="Refactor"), PARENT_FIRST, False),
        (When(in_fork_child=True), CHILD, True),
        (When(in_fork_child=True), PARENT_AFTER_FORK, False),
        (When(in_fork_child=False), PARENT_AFTER_FORK, True),
        (When(in_fork_child=False), CHILD, False),
        (When(has_tool_result_for="fork"), PARENT_AFTER_FORK, True),
        (When(has_tool_result_for="other"), PARENT_AFTER_FORK, False),
        (When(has_tool_result_for="fork"), CHILD, False),
        (When(turn=2, has_tool_result_for="fork", in_fork_child=False), PARENT_AFTER_FORK, True),
        (When(turn=2, has_tool_result_for="fork", in_fork_child=True), PARENT_AFTER_FORK, False),
        (When(), CHILD, True),
    ],
)
def test_each_condition(when: When, request_: Request, expected: bool) -> None:
    assert holds(when, facts_of(request_), 1, TAG) is expected


def test_nth_request_counts_answered_requests() -> None:
    assert holds(When(nth_request=2), facts_of(PARENT_FIRST), 2, TAG)
    assert not holds(When(nth_request=2), facts_of(PARENT_FIRST), 3, TAG)
    matcher = Matcher(
        parse_script({"rules": [{"when": {"nth_request": 2}, "reply": {"text": "2nd"}}]})
    )
    texts = [matcher.answer(PARENT_FIRST).reply.text for _ in range(3)]
    assert texts == ["OK.", "2nd", "OK."]
    assert [matcher.answer(None).nth for _ in range(2)] == [4, 5]


def test_fork_tag_is_configurable() -> None:
    custom = req(user("<worker> do it"))
    script: dict[str, Any] = {"rules": [{"when": {"in_fork_child": True}, "reply": {"text": "w"}}]}
    assert answer(script, custom) == (None, None)
    assert answer({**script, "fork_tag": "<worker>"}, custom) == (0, None)


def test_first_match_wins_and_default_answers_the_rest() -> None:
    script = {
        "rules": [
            {"when": {"in_fork_child": True}, "reply": {"text": "child"}, "mark": "child"},
            {"when": {"history_contains": "Refactor"}, "reply": {"text": "p"}, "mark": "parent"},
        ],
        "default": {"call": [{"name": "noop"}]},
    }
    assert answer(script, CHILD) == (0, "child")
    assert answer(script, PARENT_FIRST) == (1, "parent")
    result = Matcher(parse_script(script)).answer(req(user("other")))
    assert (result.rule, result.mark) == (None, None)
    assert result.reply == Reply(calls=parse_script(script).default.calls)


def test_times_limits_a_rule() -> None:
    matcher = Matcher(
        parse_script(
            {
                "rules": [
                    {"reply": {"text": "a"}, "mark": "a", "times": 2},
                    {"reply": {"text": "b"}, "mark": "b"},
                ]
            }
        )
    )
    marks = [matcher.answer(PARENT_FIRST).mark for _ in range(4)]
    assert marks == ["a", "a", "b", "b"]
    assert matcher.fired == (2, 2)


def test_unreadable_request_matches_only_rules_without_request_conditions() -> None:
    script = {
        "rules": [
            {"when": {"first": True}, "reply": {"text": "first"}},
            {"when": {"nth_request": 1}, "reply": {"text": "nth"}},
        ]
    }
    assert answer(script, None) == (1, None)


def test_times_holds_under_concurrency() -> None:
    matcher = Matcher(parse_script({"rules": [{"reply": {"text": "once"}, "times": 5}]}))
    results: list[int | None] = []
    lock = threading.Lock()

    def ask() -> None:
        for _ in range(20):
            got = matcher.answer(PARENT_FIRST)
            with lock:
                results.append(got.rule)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(0) == 5
    assert len(results) == 160
    assert matcher.answer(PARENT_FIRST).nth == 161
