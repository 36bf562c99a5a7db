"""Grouping and checking hand-made records (harness/capture/_check.py, _rebuild.py): a parent
and two siblings, a spawn, follow-ups, a continuable child, a recursive fork rejected and
one not rejected, and the groups that cannot be checked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.capture import CheckResult, GroupOptions, check_records, check_requests, read_log
from harness.model import FunctionResponse, Message, Preset, Text, Thinking, Tool, freeze
from harness.reports import capture_verdict
from harness.rules import ScenarioReport

from .simulate import (
    ASK,
    PRESET,
    Runtime,
    call,
    calls,
    child_history,
    fork_calls,
    forking_parent,
    interleaved,
    long_conversation,
    minimal_log,
    results,
    text,
    user,
)

A, B = "A: list the files", "B: read the README"
BACKGROUND = "A worker is running this in the background."


def statuses(report: ScenarioReport) -> dict[str, str]:
    return {f.rule: f.status for f in report.findings}


def only(result: CheckResult, scenario: str) -> ScenarioReport:
    (report,) = [r for r in result.reports if r.scenario_id == scenario]
    return report


def siblings(
    rt: Runtime, *, nested: str | None = None
) -> tuple[Message, list[tuple[Message, ...]]]:
    """The parent forks A and B; each child runs; ``nested`` makes each child fork again
    ("rejected": refused, "assembled": a grandchild is made, "silent": nothing follows)."""
    turn = rt.send(
        [ASK], calls(call("fork", directive=A), call("fork", directive=B)), mark="parent"
    )
    kids = [child_history([ASK], turn, d) for d in (A, B)]
    for kid in kids:
        if nested is None:
            rt.send(kid, text("Worker done."))
            continue
        own = rt.send(kid, calls(call("fork", directive="nested")))
        if nested == "rejected":
            rt.send((*kid, own, results(own, "Fork refused.", error=True)), text("Done."))
        elif nested == "assembled":
            rt.send(child_history(kid, own, "nested"), text("Grandchild done."))
            rt.send((*kid, own, results(own, BACKGROUND)), text("Done."))
    rt.send((ASK, turn, results(turn, BACKGROUND)), text("Both running."), mark="parent")
    return turn, kids


@pytest.mark.parametrize("dialect", ["openai", "anthropic", "gemini"])
def test_parent_and_two_siblings_pass(dialect: str) -> None:
    rt = Runtime(dialect)
    siblings(rt)
    result = check_records(rt.records)
    assert [c.scenario.id for c in result.checks] == ["siblings-1"]
    assert not result.not_checked
    check = result.checks[0]
    assert check.scenario.directives == (A, B)
    assert check.scenario.fork_tool == "fork"
    assert check.outcome.parent == rt.records[0].body
    assert check.outcome.children == (rt.records[1].body, rt.records[2].body)
    found = statuses(check.report)
    assert not check.report.failed, check.report
    assert found["siblings-shared"] == found["byte-prefix"] == found["history-inherited"] == "pass"
    (roles,) = result.roles
    assert [roles.role(c.index) for c in roles.conversations] == [
        "parent",
        "fork child of conversation 1, request 1",
        "fork child of conversation 1, request 1",
    ]


def test_children_are_matched_to_their_calls_by_directive() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive=A), call("fork", directive=B)))
    rt.send(child_history([ASK], turn, B), text("B done."))  # B asks first
    rt.send(child_history([ASK], turn, A), text("A done."))
    result = check_records(rt.records)
    (check,) = result.checks
    assert check.outcome.children == (rt.records[2].body, rt.records[1].body)
    assert not check.report.failed


def test_a_planted_system_change_fails_system_identical() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive=A)))
    dated = Preset(system=("You are a careful agent.\nToday is 2026-01-01.",), tools=PRESET.tools)
    rt.send(child_history([ASK], turn, A), text("done"), preset=dated)
    (check,) = check_records(rt.records).checks
    assert check.scenario.action == "fork"
    assert statuses(check.report)["system-identical"] == "fail"


def test_follow_ups_of_one_shot_children_are_checked_for_shape() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive=A)))
    kid = child_history([ASK], turn, A)
    own = rt.send(kid, calls(call("read_file", path="README")))
    rt.send((*kid, own, results(own, "# Readme")), text("Done."))
    (check,) = check_records(rt.records).checks
    assert check.outcome.follow_ups == (rt.records[2].body,)
    assert statuses(check.report)["call-pairing"] == "pass"
    assert "all 2 bodies" in next(
        f.message for f in check.report.findings if f.rule == "alternation"
    )


def test_spawn_is_checked_with_the_parents_next_request() -> None:
    rt = Runtime()
    prompt = "Summarize the README in one line."
    turn = rt.send([ASK], calls(call("delegate", prompt=prompt)), mark="parent")
    rt.send([user(Text(prompt))], text("It explains the setup."))
    rt.send((ASK, turn, results(turn, "It explains the setup.")), text("Done."), mark="parent")
    result = check_records(rt.records)
    (check,) = result.checks
    assert check.scenario.id == "spawn-1"
    assert check.scenario.prompt == prompt
    assert check.outcome.children == (rt.records[1].body,)
    assert check.outcome.parent_next == rt.records[2].body
    assert statuses(check.report)["spawn-isolated"] == "pass"
    assert result.roles[0].role(1) == "spawned by conversation 1, request 1"


def test_a_parent_that_takes_in_the_spawns_transcript_fails() -> None:
    rt = Runtime()
    prompt = "Summarize the README in one line."
    turn = rt.send([ASK], calls(call("delegate", prompt=prompt)))
    rt.send([user(Text(prompt))], text("ok"))
    transcript = (Message("model", (Text("(helper) reading"),)), user(Text("(helper) ok")))
    rt.send((ASK, turn, results(turn, "ok"), *transcript), text("Done."))
    (check,) = check_records(rt.records).checks
    assert statuses(check.report)["spawn-isolated"] == "fail"


def test_a_spawn_without_a_next_parent_request_is_not_checked() -> None:
    rt = Runtime()
    prompt = "Summarize the README."
    rt.send([ASK], calls(call("delegate", prompt=prompt)))
    rt.send([user(Text(prompt))], text("ok"))
    result = check_records(rt.records)
    assert not result.checks
    (skipped,) = result.not_checked
    assert skipped.what.startswith("spawn at request 1")
    assert "made no request after request 1" in skipped.reason


@pytest.mark.parametrize(
    ("dialect", "message"),
    [("openai", "Fork refused."), ("anthropic", "Fork refused. (error)")],
)
def test_rejected_recursion_passes(dialect: str, message: str) -> None:
    rt = Runtime(dialect)
    siblings(rt, nested="rejected")
    result = check_records(rt.records)
    ids = [c.scenario.id for c in result.checks]
    assert ids == ["siblings-1", "recursion-2", "recursion-4"]
    for check in result.checks[1:]:
        assert check.outcome.status == "rejected"
        assert check.outcome.message == message
        assert check.scenario.known_fork_child
        assert statuses(check.report)["recursion-rejected"] == "pass"
    assert not result.failed
    assert result.exit_code == 0


def test_recursion_not_rejected_fails() -> None:
    rt = Runtime()
    siblings(rt, nested="assembled")
    result = check_records(rt.records)
    recursion = [c for c in result.checks if c.scenario.id.startswith("recursion-")]
    assert len(recursion) == 2
    for check in recursion:
        assert check.outcome.status == "assembled"
        assert len(check.outcome.children) == 1
        assert statuses(check.report)["recursion-rejected"] == "fail"
    assert result.failed
    assert result.exit_code == 1
    assert not only(result, "siblings-1").failed
    (roles,) = result.roles
    grandchildren = [
        c for c in roles.conversations if "fork child of conversation 2" in roles.role(c.index)
    ]
    assert len(grandchildren) == 1


def test_recursion_with_nothing_after_it_is_not_checked() -> None:
    rt = Runtime()
    siblings(rt, nested="silent")
    result = check_records(rt.records)
    assert [c.scenario.id for c in result.checks] == ["siblings-1"]
    assert len(result.not_checked) == 2
    for item in result.not_checked:
        assert item.what.startswith("recursion at request")
        assert "whether the runtime refused the fork is unknown" in item.reason


def test_continuable_child_with_follow_ups() -> None:
    send_message = Tool("send_message", "Send a message to an agent.", freeze({"type": "object"}))
    preset = Preset(system=PRESET.system, tools=(*PRESET.tools, send_message))
    rt = Runtime()
    first = rt.send([ASK], text("I looked around."), preset=preset, mark="parent")
    again = user(Text("Now check the tests."))
    parent_history = (ASK, first, again)
    turn = rt.send(parent_history, calls(call("fork", task="Run the test suite.")), preset=preset)
    task = (
        'Run the test suite.\n\nYour direct parent is the agent with id "main". When you have a '
        'result, send it there with send_message({"agent_id": "main", "message": "..."}).'
    )
    kid = (ASK, first, user(Text(task)))
    own = rt.send(kid, calls(call("read_file", path="tests")), preset=preset)
    rt.send((*kid, own, results(own, "3 tests")), text("All pass."), preset=preset)
    rt.send((*parent_history, turn, results(turn, "started")), text("ok"), preset=preset)
    result = check_records(rt.records, options=GroupOptions(parent_id="main"))
    (check,) = result.checks
    assert check.scenario.action == "continuable"
    assert check.outcome.parent == rt.records[0].body
    assert check.outcome.follow_ups == (rt.records[3].body,)
    found = statuses(check.report)
    assert found["append-only"] == found["parent-id-guidance"] == found["byte-prefix"] == "pass"
    unknown = check_records(rt.records).checks[0]
    assert statuses(unknown.report)["parent-id-guidance"] == "not-applicable"


def test_a_child_without_the_tag_is_found_by_its_directive() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive=A)))
    closing = user(*(FunctionResponse(c.name, "skip", c.id) for c in fork_calls(turn)), Text(A))
    rt.send((ASK, turn, closing), text("done"))
    rt.send((ASK, turn, results(turn, BACKGROUND)), text("ok"))
    result = check_records(rt.records)
    (check,) = result.checks
    assert check.outcome.children == (rt.records[1].body,)
    assert len(result.roles[0].conversations) == 2


def test_a_child_with_rewritten_history_is_still_checked_and_fails() -> None:
    rt = Runtime()
    first = rt.send([ASK], text("Looking."))
    again = user(Text("Go on."))
    turn = rt.send((ASK, first, again), calls(call("fork", directive=A)))
    compacted = (user(Text("Summary: the user wants a tidy repository.")), first, again)
    rt.send(child_history(compacted, turn, A), text("done"))
    result = check_records(rt.records)
    (roles,) = result.roles
    assert roles.role(1).endswith("history rewritten")
    (check,) = result.checks
    assert statuses(check.report)["history-inherited"] == "fail"


def test_independent_conversations_and_refusals_are_listed_not_checked() -> None:
    rt = Runtime()
    rt.send([ASK], text("Hello."), mark="parent")
    rt.send([user(Text("Write a title for this chat."))], text("Tidying"))
    rt.send([ASK], text("x"), status=400)
    result = check_records(rt.records)
    assert not result.checks
    assert not result.not_checked
    assert result.roles[0].role(1) == "other: no child message, no delegation prompt"
    assert [(i.seq, i.reason) for i in result.ignored] == [
        (3, "refused with status 400 (POST /v1/chat/completions)")
    ]
    assert result.inconclusive[0].startswith("nothing was checked: no fork or spawn call")


def test_a_tagged_conversation_that_cannot_be_placed_is_not_checked() -> None:
    rt = Runtime()
    first = rt.send([ASK], calls(call("fork", directive=A)))
    rt.send(child_history([ASK], first, A), text("done"))
    again = rt.send((ASK, first, results(first, BACKGROUND)), calls(call("fork", directive=B)))
    rt.send(child_history([ASK], again, B), text("done"))
    rt.send([user(Text("<fork-boilerplate> rules </fork-boilerplate> Directive: C"))], text("?"))
    result = check_records(rt.records)
    assert [c.scenario.id for c in result.checks] == ["fork-1", "fork-3"]
    (item,) = result.not_checked
    assert item.what == "conversation 4 (requests 5)"
    assert "2 earlier turns call a fork tool, so where it was forked is unclear" in item.reason
    assert result.roles[0].role(3) == "not placed: it carries the fork tag"


def test_a_fork_call_with_no_string_argument_is_not_checked() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork")))
    rt.send(child_history([ASK], turn, "x"), text("done"))
    result = check_records(rt.records)
    assert not result.checks
    assert any("no string argument" in n.reason for n in result.not_checked)


def test_a_lost_child_fails_well_formed() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive=A), call("fork", directive=B)))
    rt.send(child_history([ASK], turn, B), text("B done."))
    (check,) = check_records(rt.records).checks
    assert check.scenario.directives == (B, A)
    assert statuses(check.report)["well-formed"] == "fail"


def test_directive_key_and_fork_tool_options() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("Task", kind="worker", prompt=A)))
    rt.send(child_history([ASK], turn, A), text("done"))
    options = GroupOptions(directive_key="prompt", fork_tool="Task")
    (check,) = check_records(rt.records, options=options).checks
    assert check.scenario.directives == (A,)
    assert check.scenario.fork_tool == "Task"
    assert not check.report.failed


# --- spawns as real runtimes make them ---------------------------------------------------------

PREAMBLE = Text("<system-reminder>Skills: none. Working directory: /work.</system-reminder>")
TASK = "Summarize the README in one line, please."


def test_two_spawns_of_one_turn_are_two_checks_with_their_own_ids() -> None:
    rt = Runtime()
    other = "Count the files in the repository, please."
    turn = rt.send([ASK], calls(call("delegate", prompt=TASK), call("delegate", prompt=other)))
    rt.send([user(Text(TASK))], text("It explains the setup."))
    rt.send([user(Text(other))], text("12"))
    rt.send((ASK, turn, results(turn, "done")), text("Done."))
    result = check_records(rt.records)
    assert [c.scenario.id for c in result.checks] == ["spawn-1", "spawn-1-2"]
    for check in result.checks:
        assert statuses(check.report)["spawn-isolated"] == "pass", check.report


def test_a_spawn_that_starts_with_the_runtimes_preamble_is_isolated() -> None:
    rt = Runtime()
    asked = user(PREAMBLE, Text("Tidy up the repository."))
    turn = rt.send([asked], calls(call("delegate", description="Sum", prompt=TASK)))
    rt.send([user(PREAMBLE, Text(f"Your task:\n{TASK}"))], text("It explains the setup."))
    rt.send((asked, turn, results(turn, "It explains the setup.")), text("Done."))
    (check,) = check_records(rt.records).checks
    finding = next(f for f in check.report.findings if f.rule == "spawn-isolated")
    assert finding.status == "pass"
    assert "runtime's own preamble" in finding.message


def test_a_spawn_carrying_the_parents_request_text_fails() -> None:
    rt = Runtime()
    asked = user(PREAMBLE, Text("Tidy up the repository."))
    turn = rt.send([asked], calls(call("delegate", prompt=TASK)))
    rt.send([user(PREAMBLE, Text("Tidy up the repository."), Text(TASK))], text("ok"))
    rt.send((asked, turn, results(turn, "ok")), text("Done."))
    (check,) = check_records(rt.records).checks
    assert statuses(check.report)["spawn-isolated"] == "fail"


def test_a_preamble_sent_as_a_user_turn_of_its_own_is_the_runtimes() -> None:
    """codex sends its environment context as a user message before the user's prompt, in
    the parent and in a spawned child alike."""
    rt = Runtime()
    context, asked = user(PREAMBLE), user(Text("Tidy up the repository."))
    turn = rt.send([context, asked], calls(call("delegate", prompt=TASK)))
    rt.send([user(PREAMBLE), user(Text(TASK))], text("It explains the setup."))
    rt.send((context, asked, turn, results(turn, "It explains the setup.")), text("Done."))
    (check,) = check_records(rt.records).checks
    finding = next(f for f in check.report.findings if f.rule == "spawn-isolated")
    assert finding.status == "pass", finding.message
    assert "runtime's own preamble" in finding.message


def test_a_spawn_repeating_the_parents_user_turns_after_the_preamble_fails() -> None:
    rt = Runtime()
    context, asked = user(PREAMBLE), user(Text("Tidy up the repository."))
    turn = rt.send([context, asked], calls(call("delegate", prompt=TASK)))
    rt.send([user(PREAMBLE), user(Text("Tidy up the repository."), Text(TASK))], text("ok"))
    rt.send((context, asked, turn, results(turn, "ok")), text("Done."))
    (check,) = check_records(rt.records).checks
    assert statuses(check.report)["spawn-isolated"] == "fail"


# --- every conversation is append-only ----------------------------------------------------------


def rerendered(rt: Runtime, index: int, change: Callable[[dict[str, Any]], None]) -> None:
    """Record ``index`` with its body changed by ``change`` (on the decoded JSON)."""
    record = rt.records[index]
    decoded = orjson.loads(record.body or b"{}")
    change(decoded)
    body = orjson.dumps(decoded)
    rt.records[index] = replace(record, body=body, body_size=len(body), json=decoded)


def three_turns(rt: Runtime) -> None:
    first = rt.send([ASK], calls(call("read_file", path="README.md")), mark="parent")
    history = (ASK, first, results(first, "# Title"))
    second = rt.send(history, text("Read it."), mark="parent")
    rt.send((*history, second, user(Text("Thanks."))), text("Done."), mark="parent")


def test_a_conversation_whose_turns_extend_each_other_passes() -> None:
    rt = Runtime()
    three_turns(rt)
    result = check_records(rt.records)
    (turns,) = result.turns
    assert turns.id == "turns-1"
    assert statuses(turns.report)["append-only"] == "pass"
    assert result.inconclusive[0].startswith("nothing was checked: no fork or spawn call")


@pytest.mark.parametrize(
    ("what", "change"),
    [
        ("a block turned into a string", lambda b: b["messages"][1].update(
            content=[{"type": "text", "text": b["messages"][1]["content"]}])),
        ("white space in an old message", lambda b: b["messages"][1].update(
            content=b["messages"][1]["content"] + " ")),
        ("a call id renumbered", lambda b: b["messages"][2]["tool_calls"][0].update(
            id="call_renumbered")),
        ("the system prompt changed", lambda b: b["messages"][0].update(
            content="You are a careful agent. Today is Monday.")),
    ],
)  # fmt: skip
def test_a_turn_that_rerenders_an_old_one_fails_append_only_with_its_cost(
    what: str, change: Callable[[dict[str, Any]], None]
) -> None:
    rt = Runtime()
    three_turns(rt)
    rerendered(rt, 2, change)
    result = check_records(rt.records)
    (turns,) = result.turns
    assert [c.seqs for c in result.roles[0].conversations] == [(1, 2, 3)], what
    finding = turns.report.finding("append-only")
    assert finding.status == "fail", what
    assert finding.message.startswith("request 3 rewrites request 2 at byte ")
    assert finding.evidence is not None
    assert finding.evidence.path is not None
    assert finding.cost is not None
    assert 0 < finding.cost.lost_bytes <= finding.cost.child_bytes
    assert result.failed


def test_a_turn_that_reorders_an_old_messages_keys_loses_nothing_and_says_why() -> None:
    """The provider reads a message by its fields: the order they were sent in is not part
    of the prompt, so the turn still extends the one before (inferred, and said so)."""
    rt = Runtime()
    three_turns(rt)
    rerendered(
        rt, 2, lambda b: b["messages"].__setitem__(1, dict(reversed(b["messages"][1].items())))
    )
    (turns,) = check_records(rt.records).turns
    finding = turns.report.finding("append-only")
    assert finding.status == "pass", finding.message
    assert "same to the cache (inferred): the key order of a message" in finding.message


def test_an_openai_string_turned_into_one_text_part_is_said_possibly_the_same() -> None:
    rt = Runtime()
    three_turns(rt)
    rerendered(
        rt,
        2,
        lambda b: b["messages"][1].update(
            content=[{"type": "text", "text": b["messages"][1]["content"]}]
        ),
    )
    (turns,) = check_records(rt.records).turns
    finding = turns.report.finding("append-only")
    assert finding.status == "fail"
    assert "possibly the same to the cache" in finding.message
    assert "undocumented" in finding.message


# --- system-role messages between turns (current claude-code) ---------------------------------

REMINDER = Message("system", (Text("Working directory: /work. Today is a weekday."),))


def test_system_messages_between_turns_take_no_part_in_alternation_or_pairing() -> None:
    rt = Runtime("anthropic")
    turn = rt.send([ASK, REMINDER], calls(call("fork", directive=A)), mark="parent")
    rt.send(child_history([ASK, REMINDER], turn, A), text("done"))
    (check,) = check_records(rt.records).checks
    assert check.report.finding("alternation").status == "pass", check.report
    assert "(and 1 system-role message)" in check.report.finding("alternation").message
    assert check.report.finding("call-pairing").status == "pass"
    assert not check.report.failed


def test_two_user_turns_around_a_system_message_still_fail_alternation() -> None:
    # in a dialect that holds requests to alternation (Anthropic combines the two turns)
    rt = Runtime("openai")
    turn = rt.send([ASK, REMINDER], calls(call("fork", directive=A)), mark="parent")
    kid = child_history([ASK, REMINDER], turn, A)
    rt.send((*kid[:-1], REMINDER, user(Text("Begin.")), user(Text("Now."))), text("done"))
    (check,) = check_records(rt.records).checks
    assert check.report.finding("alternation").status == "fail"


def logged(rt: Runtime, path: Path) -> CheckResult:
    """``rt``'s requests checked as check-log checks a minimal log: read lazily, no replies."""
    return check_requests(*read_log(minimal_log(rt, path)))


def test_a_log_of_identical_requests_checks_nothing(tmp_path: Path) -> None:
    rt = Runtime()
    for _ in range(300):
        rt.send([ASK], text("Not yet."))
    result = logged(rt, tmp_path / "log.jsonl")
    assert [c.seqs for c in result.roles[0].conversations] == [(s,) for s in range(1, 301)]
    assert (result.checks, result.turns, result.not_checked) == ((), (), ())
    assert capture_verdict(result) == "inconclusive"
    assert result.exit_code == 4


def test_a_log_of_interleaved_conversations_checks_each_ones_turns(tmp_path: Path) -> None:
    rt = Runtime()
    interleaved(rt, 60, 3)
    result = logged(rt, tmp_path / "log.jsonl")
    assert [c.what.split(": ")[-1] for c in result.turns] == [
        f"requests {k + 1}, {k + 61}, {k + 121}" for k in range(60)
    ]
    assert all(statuses(c.report)["append-only"] == "pass" for c in result.turns)
    assert result.checks == ()
    assert capture_verdict(result) == "inconclusive"


def test_a_log_of_one_long_conversation_checks_every_turn_against_the_last(
    tmp_path: Path,
) -> None:
    rt = Runtime()
    long_conversation(rt, 100)
    (turns,) = logged(rt, tmp_path / "log.jsonl").turns
    finding = turns.report.finding("append-only")
    assert finding.status == "pass"
    assert finding.message.endswith("(all 99 bodies)")
    assert turns.report.finding("well-formed").message == "100 bodies read as openai requests"


def test_a_long_conversation_rewritten_midway_fails_at_that_turn(tmp_path: Path) -> None:
    rt = Runtime()
    history = long_conversation(rt, 60)
    history[20] = user(Text("Next  9."))  # white space: the same turn to grouping
    rt.send(history, text("done"))
    (turns,) = logged(rt, tmp_path / "log.jsonl").turns
    finding = turns.report.finding("append-only")
    assert finding.status == "fail"
    assert finding.message.startswith("request 61 rewrites request 60 at byte ")
    assert finding.message.endswith("(1 of 60 bodies)")


def test_a_log_of_a_parent_forking_at_every_turn_checks_every_fork(tmp_path: Path) -> None:
    rt = Runtime()
    forking_parent(rt, 20, 2)
    result = logged(rt, tmp_path / "log.jsonl")
    seqs = [c.seqs[0] for c in result.roles[0].conversations[1:]]
    assert [c.id for c in result.checks] == [f"siblings-{s - 1}" for s in seqs[::2]]
    assert len(result.turns) == 41
    assert capture_verdict(result) == "passed", [r.scenario_id for r in result.reports if r.failed]


# --- lifecycles and children from evidence ----------------------------------------------------

SEND = Tool("send_message", "Send a message to an agent.", freeze({"type": "object"}))
WITH_SEND = Preset(system=PRESET.system, tools=(*PRESET.tools, SEND))


def one_shot(rt: Runtime, preset: Preset) -> None:
    """A one-shot fork: the child inherits the turn that forked it, answers, and its answer
    comes back to the parent as the fork call's result."""
    turn = rt.send([ASK], calls(call("fork", directive=A)), preset=preset, mark="parent")
    rt.send(child_history([ASK], turn, A), text("The repository holds 12 files."), preset=preset)
    closing = results(turn, "The repository holds 12 files.")
    rt.send((ASK, turn, closing), text("Done."), preset=preset, mark="parent")


@pytest.mark.parametrize("preset", [PRESET, WITH_SEND], ids=["without", "with-send_message"])
def test_a_one_shot_fork_is_judged_one_shot_whatever_tools_the_parent_declares(
    preset: Preset,
) -> None:
    rt = Runtime()
    one_shot(rt, preset)
    result = check_records(rt.records, options=GroupOptions(parent_id="main"))
    (check,) = result.checks
    assert check.scenario.action == "fork"
    assert any(
        e.startswith("one-shot: conversation 2's history holds the model turn")
        for e in check.evidence
    )
    assert statuses(check.report)["parent-id-guidance"] == "not-applicable"
    assert not result.failed
    assert result.exit_code == 0


def test_a_continuable_child_is_known_by_its_seed_without_send_message() -> None:
    rt = Runtime()
    first = rt.send([ASK], text("I looked around."), mark="parent")
    again = user(Text("Now check the tests."))
    turn = rt.send((ASK, first, again), calls(call("fork", task="Run the test suite.")))
    rt.send((ASK, first, user(Text("Run the test suite."))), text("All pass."))
    rt.send((ASK, first, again, turn, results(turn, "started")), text("ok"))
    (check,) = check_records(rt.records).checks
    assert check.scenario.action == "continuable"
    (said,) = [e for e in check.evidence if e.startswith("continuable:")]
    assert "is the parent's completed turns, without the turn that forked it" in said


def test_a_child_messaged_after_it_answered_is_continuable() -> None:
    # its seed shows neither lifecycle (the parent had no completed turn; the child does
    # not hold the turn that forked it): how it lived does
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", task="Run the test suite.")), mark="parent")
    kid = (ASK, user(Text("Run the test suite.")))
    answer = rt.send(kid, text("All pass."))
    rt.send((*kid, answer, user(Text("Now run the linters too."))), text("Clean."))
    rt.send((ASK, turn, results(turn, "started")), text("ok"), mark="parent")
    (check,) = check_records(rt.records).checks
    assert check.scenario.action == "continuable"
    assert "continuable: conversation 2 was sent a message after it answered (request 3)" in (
        check.evidence
    )


def test_the_lifecycle_option_overrides_the_evidence() -> None:
    rt = Runtime()
    one_shot(rt, PRESET)
    (check,) = check_records(rt.records, options=GroupOptions(lifecycle="continuable")).checks
    assert check.scenario.action == "continuable"
    assert "continuable: as --lifecycle says" in check.evidence
    with pytest.raises(ValueError, match="lifecycle must be one of"):
        GroupOptions(lifecycle="background")


def test_a_nested_fork_whose_grandchild_ran_is_allowed_not_rejected() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive=A)), mark="parent")
    kid = child_history([ASK], turn, A)
    own = rt.send(kid, calls(call("fork", directive="Count the lines of every file.")))
    # the grandchild starts fresh (nothing ties it to the call but its answer)
    rt.send(
        [Message("user", (Text("Go."),))], text("There are 1,204 lines in all."), preset=Preset()
    )
    rt.send((*kid, own, results(own, "There are 1,204 lines in all.")), text("Done."))
    rt.send((ASK, turn, results(turn, BACKGROUND)), text("ok"), mark="parent")
    result = check_records(rt.records)
    (recursion,) = [c for c in result.checks if c.scenario.id.startswith("recursion-")]
    assert recursion.outcome.status == "assembled"
    assert statuses(recursion.report)["recursion-rejected"] == "fail"
    assert any(
        e.startswith("allowed: conversation 3 ran after the call") for e in recursion.evidence
    )
    assert result.exit_code == 1


def test_a_refused_nested_fork_says_why_it_is_taken_for_refused() -> None:
    rt = Runtime()
    siblings(rt, nested="rejected")
    result = check_records(rt.records)
    recursion = result.checks[1]
    assert "refused: request 3 answers the call and no grandchild request was made" in (
        recursion.evidence
    )


def test_one_call_starting_two_spawns_has_both_checked() -> None:
    rt = Runtime()
    first, second = "Audit the parser module for bugs.", "Audit the lexer module for bugs."
    turn = rt.send([ASK], calls(call("delegate", tasks=[first, second])), mark="parent")  # type: ignore[arg-type]
    rt.send([user(Text(first))], text("ok"))
    rt.send([user(Text(second)), user(Text("Context: Tidy up the repository."))], text("ok"))
    rt.send((ASK, turn, results(turn, "ok")), text("Done."), mark="parent")
    result = check_records(rt.records)
    assert [c.scenario.id for c in result.checks] == ["spawn-1", "spawn-1-2"]
    spawned = [c.report for c in result.checks]
    assert statuses(spawned[0])["spawn-isolated"] == "pass"
    assert statuses(spawned[1])["spawn-isolated"] == "fail"  # the parent's prompt, planted
    assert result.exit_code == 1


def test_one_call_starting_two_forks_has_both_as_siblings() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", tasks=[A, B])), mark="parent")  # type: ignore[arg-type]
    rt.send(child_history([ASK], turn, A), text("A done."))
    rt.send(child_history([ASK], turn, B), text("B done."))
    rt.send((ASK, turn, results(turn, BACKGROUND)), text("ok"), mark="parent")
    result = check_records(rt.records)
    (check,) = result.checks
    assert check.scenario.directives == (A, B)
    assert len(check.outcome.children) == 2
    assert "one call started several children, one for each argument they repeat" in check.evidence
    assert not result.not_checked
    assert result.exit_code == 0


REPORT = Tool("report", "Report your result.", freeze({"type": "object"}))


@pytest.mark.parametrize("planted", [False, True])
def test_a_fork_on_the_parents_first_turn_is_still_a_fork(planted: bool) -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive=A)), mark="parent")
    child = (
        Preset(system=(*PRESET.system, "You are a forked worker."), tools=(*PRESET.tools, REPORT))
        if planted
        else PRESET
    )
    rt.send([user(Text(A))], text("done"), preset=child)
    rt.send((ASK, turn, results(turn, "done")), text("ok"), mark="parent")
    result = check_records(rt.records, options=GroupOptions(fork_tool="fork"))
    (check,) = result.checks
    assert check.scenario.action == "fork"
    assert any(e.startswith("nothing inherited") for e in check.evidence)
    found = statuses(check.report)
    assert found["history-inherited"] == "not-applicable"
    assert found["byte-prefix"] == "not-applicable"
    expected = "fail" if planted else "pass"
    assert found["tools-identical"] == found["system-identical"] == expected
    assert found["settings-identical"] == "pass"
    assert result.roles[0].role(1).endswith("nothing inherited yet")


def test_an_agent_repeating_a_taken_prompt_is_not_checked_and_inconclusive() -> None:
    rt = Runtime()
    prompt = "Count the files in the repository."
    turn = rt.send([ASK], calls(call("delegate", prompt=prompt)), mark="parent")
    rt.send([user(Text(prompt))], text("12"))
    rt.send([user(Text(prompt))], text("12"))  # a second agent: the call has one argument
    rt.send((ASK, turn, results(turn, "12")), text("Done."), mark="parent")
    result = check_records(rt.records)
    assert [c.scenario.id for c in result.checks] == ["spawn-1"]
    (item,) = result.not_checked
    assert "repeats the argument 'Count the files in the repository.'" in item.reason
    assert result.roles[0].role(2) == "not placed: it repeats a call's argument"
    assert result.exit_code == 4
    assert result.inconclusive[0].startswith("1 group was found but not checked")


def session(rt: Runtime, *, inserted: bool, mark: str | None) -> None:
    """A parent session, then a new process continuing it with a user message of its own."""
    first = rt.send([ASK], text("I tidied the repository."), mark="parent")
    rt.send((ASK, first, user(Text("Thanks."))), text("You are welcome."), mark="parent")
    tools = (
        *PRESET.tools[:1],
        Tool("question", "Ask the user.", freeze({"type": "object"})),
        *PRESET.tools[1:],
    )
    resumed = Preset(system=PRESET.system, tools=tools if inserted else PRESET.tools)
    rt.send(
        (ASK, first, user(Text("Now write the changelog."))), text("ok"), preset=resumed, mark=mark
    )


@pytest.mark.parametrize("inserted", [False, True])
def test_a_declared_session_fork_conforms_or_fails_as_a_fork(inserted: bool) -> None:
    rt = Runtime()
    session(rt, inserted=inserted, mark="resumed")
    result = check_records(rt.records, options=GroupOptions(session_fork_mark="resumed"))
    (check,) = result.checks
    assert check.scenario.id == "session-fork-1"
    assert check.evidence == ("a session fork, declared by its mark",)
    assert result.exit_code == (1 if inserted else 0)
    if inserted:
        found = check.report.finding("tools-identical")
        assert found.status == "fail"
        assert "tool `question`" in found.message


def test_a_branch_with_a_user_message_of_its_own_is_a_recognised_session_fork() -> None:
    rt = Runtime()
    session(rt, inserted=False, mark=None)
    result = check_records(rt.records)
    (check,) = result.checks
    assert check.scenario.id == "session-fork-1"
    assert check.evidence[0].startswith("a session fork, recognised: it branches from request 1")
    assert result.roles[0].role(1) == "session fork of conversation 1, request 1 (recognised)"
    assert result.exit_code == 0


@pytest.mark.parametrize("kept", [True, False])
def test_a_fork_keeps_the_thinking_its_parent_replays(kept: bool) -> None:
    rt = Runtime("anthropic")
    reply = replace(calls(call("fork", directive=A)), thinking="Split it; fork a worker.")
    turn = rt.send([ASK], reply, mark="parent")
    assert turn.parts[0] == Thinking("Split it; fork a worker.", "sig_ph000001")
    copy = turn if kept else Message("model", turn.parts[1:])
    rt.send(child_history([ASK], copy, A), text("done"))
    rt.send((ASK, turn, results(turn, BACKGROUND)), text("ok"), mark="parent")  # replays it
    (check,) = check_records(rt.records).checks
    found = check.report.finding("history-inherited")
    if kept:
        assert found.status == "pass"
    else:
        assert found.status == "warning"
        assert "lacks the thinking (signature 'sig_ph000001') that the parent replays" in (
            found.message
        )
