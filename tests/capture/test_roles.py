"""Roles (harness/capture/_roles.py): the parent by mark or by the calls it made, siblings
matched to their calls by the argument each received, children beyond the calls, spawns
found inside templates and tied to the latest call, side requests left out, the fork tool
learnt."""

from __future__ import annotations

import pytest

from harness.capture import (
    GroupOptions,
    Roles,
    ToolCall,
    assign_roles,
    check_records,
    group,
    observe,
)
from harness.model import Preset, Text, freeze

from .simulate import (
    ASK,
    Runtime,
    call,
    calls,
    child_history,
    forking_parent,
    interleaved,
    results,
    text,
    user,
)


def roles(rt: Runtime, options: GroupOptions | None = None) -> Roles:
    used, _ = observe(rt.records)
    options = options or GroupOptions()
    return assign_roles(group(used, options), options)


def test_the_parent_is_the_marked_conversation() -> None:
    rt = Runtime()
    rt.send([user(Text("A title please."))], text("Title"))
    rt.send([ASK], text("ok"), mark="parent")
    assert roles(rt).parent == 1
    assert roles(rt, GroupOptions(parent_mark="none")).parent == 0


def test_the_longest_fitting_directive_wins() -> None:
    rt = Runtime()
    short, long = "check", "check the tests"
    turn = rt.send([ASK], calls(call("fork", directive=short), call("fork", directive=long)))
    rt.send(child_history([ASK], turn, long), text("long"))
    rt.send(child_history([ASK], turn, short), text("short"))
    (fork,) = roles(rt).fork_turns
    assert fork.directives == (short, long)
    assert fork.children == (2, 1)
    assert fork.extra == ()


def test_children_beyond_the_calls_are_extra() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A")))
    rt.send(child_history([ASK], turn, "A"), text("one"))
    rt.send(child_history([ASK], turn, "A"), text("two"))  # the same request: a second child
    placed = roles(rt)
    (fork,) = placed.fork_turns
    assert fork.children == (1,)
    assert fork.extra == (2,)
    assert placed.role(2) == "fork child of conversation 1, request 1"


def test_each_spawn_belongs_to_the_latest_call_with_its_prompt() -> None:
    rt = Runtime()
    prompt = "Count the files."
    first = rt.send([ASK], calls(call("delegate", prompt=prompt)))
    rt.send([user(Text(prompt))], text("3"))
    after = (ASK, first, results(first, "3"))
    second = rt.send(after, calls(call("delegate", prompt=prompt)))
    rt.send([user(Text(prompt))], text("3"))  # the same prompt again: a second spawn
    rt.send((*after, second, results(second, "3")), text("done"))
    placed = roles(rt)
    assert [(s.child, s.source, s.turn, s.prompt) for s in placed.spawns] == [
        (1, 0, 0, prompt),
        (2, 0, 1, prompt),
    ]
    assert placed.role(2) == "spawned by conversation 1, request 3"


def test_the_fork_tool_is_learnt_from_children() -> None:
    rt = Runtime()
    first = rt.send([ASK], calls(call("fork", directive="A")))
    rt.send(child_history([ASK], first, "A"), text("done"))
    after = (ASK, first, results(first, "started"))
    rt.send(after, calls(call("fork", directive="B"), call("read_file", path="x")))
    placed = roles(rt)
    assert [(t.turn, t.tool, t.children) for t in placed.fork_turns] == [
        (0, "fork", (1,)),
        (1, "fork", (None,)),
    ]
    assert [
        (t.turn, t.tool) for t in roles(rt, GroupOptions(fork_tool="read_file")).fork_turns
    ] == [(1, "read_file")]


# --- grouping from evidence -------------------------------------------------------------------

NO_TOOLS = Preset(system=("You are a router. Answer with a JSON score.",))


def agent_call(directive: str, *, order: str) -> ToolCall:
    """A runtime's fork call: only ``prompt`` reaches the child; the other arguments stay
    with the runtime, in the order ``order`` names."""
    args = {"description": "Worker " + directive[:1], "prompt": directive, "type": "fork"}
    return ToolCall("fork", freeze({k: args[k] for k in order.split()}))  # type: ignore[arg-type]


@pytest.mark.parametrize("order", ["description prompt type", "prompt description type",
                                   "type description prompt"])  # fmt: skip
def test_the_directive_is_the_argument_the_child_received_in_any_order(order: str) -> None:
    rt = Runtime()
    a, b = "A: list the files", "B: read the README"
    turn = rt.send([ASK], calls(agent_call(a, order=order), agent_call(b, order=order)))
    rt.send(child_history([ASK], turn, b), text("B done"))
    rt.send(child_history([ASK], turn, a), text("A done"))
    (fork,) = roles(rt).fork_turns
    assert fork.directives == (a, b)
    assert fork.children == (2, 1)
    result = check_records(rt.records)
    (check,) = result.checks
    assert check.scenario.directives == (a, b)
    assert not check.report.failed, check.report


def test_the_parent_is_the_conversation_that_made_the_call_not_the_first_seen() -> None:
    rt = Runtime()
    rt.send([user(Text("Score this task: Tidy up the repository."))], text("{}"), preset=NO_TOOLS)
    turn = rt.send([ASK], calls(call("fork", directive="A: list the files")))
    rt.send(child_history([ASK], turn, "A: list the files"), text("done"))
    placed = roles(rt)
    assert placed.parent == 1
    assert placed.role(0) == "other: no child message, no delegation prompt"
    assert placed.role(2) == "fork child of conversation 2, request 2"


PROMPT = "Count the Python files under src/ and report the number."


def test_a_spawn_is_found_inside_a_template_after_reminders_split_over_blocks() -> None:
    rt = Runtime()
    rt.send([ASK], calls(call("delegate", description="Count", prompt=PROMPT)))
    reminder = Text("<system-reminder>Today is a weekday.</system-reminder>")
    head, tail = PROMPT[:20], PROMPT[20:]
    wrapped = user(
        reminder, Text(f"Your task:\n<objective>\n  {head}"), Text(f"{tail}\n</objective>")
    )
    rt.send([wrapped], text("12"))
    placed = roles(rt)
    (link,) = placed.spawns
    assert (link.child, link.source, link.prompt) == (1, 0, PROMPT)


def test_a_side_request_repeating_the_prompt_without_tools_is_no_spawn() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("delegate", prompt=PROMPT)))
    rt.send([user(Text(PROMPT))], text('{"score": 1}'), preset=NO_TOOLS)  # a router
    rt.send([user(Text(PROMPT))], text("12"))  # the spawned agent
    rt.send((ASK, turn, results(turn, "12")), text("Done."))
    placed = roles(rt)
    (link,) = placed.spawns
    assert link.child == 2
    assert placed.role(1) == "other: no child message, no delegation prompt"


def test_a_short_argument_inside_a_longer_text_is_no_spawn_prompt() -> None:
    rt = Runtime()
    rt.send([ASK], calls(call("read_file", path="src")))
    rt.send([user(Text("Explain what the src folder holds."))], text("ok"))
    assert roles(rt).spawns == ()


def test_each_call_gets_one_spawned_child() -> None:
    rt = Runtime()
    rt.send([ASK], calls(call("delegate", prompt=PROMPT)))
    rt.send([user(Text(PROMPT))], text("12"))
    rt.send([user(Text(PROMPT))], text("12"))  # a second agent with the same prompt, no call
    placed = roles(rt)
    assert [link.child for link in placed.spawns] == [1]


def test_a_parent_forking_at_every_turn_has_each_child_placed_at_its_turn() -> None:
    rt = Runtime()
    forking_parent(rt, 30, 2)
    placed = roles(rt)
    convs = placed.conversations
    assert placed.parent == 0
    assert len(convs[0].requests) == 31
    assert [(t.source, t.turn) for t in placed.fork_turns] == [(0, t) for t in range(30)]
    for t, turn in enumerate(placed.fork_turns):
        seq = convs[0].requests[t].seq
        assert [convs[c].seqs for c in turn.children if c is not None] == [
            (seq + 1, seq + 2),
            (seq + 3, seq + 4),
        ]
        assert turn.directives == tuple(f"Audit directory {t}-{k} and report." for k in range(2))
        for child in turn.children:
            assert child is not None
            assert placed.role(child) == f"fork child of conversation 1, request {seq}"
    assert placed.unplaced == ()


def test_interleaved_independent_conversations_are_others() -> None:
    rt = Runtime()
    interleaved(rt, 60, 2)
    placed = roles(rt)
    assert placed.parent == 0
    assert placed.fork_turns == ()
    assert placed.spawns == ()
    assert [u.conversation for u in placed.unplaced] == list(range(1, 60))
    assert {placed.role(k) for k in range(1, 60)} == {
        "other: no child message, no delegation prompt"
    }


def test_spawns_among_many_calls_are_each_tied_to_their_own_call() -> None:
    """A parent that reads a file at every turn and now and then spawns a helper, with
    prompts of every length: each helper belongs to the call whose prompt it holds."""
    rt = Runtime()
    prompts = {
        5: "Go on.",
        10: "Count it all.",
        15: "Count the tests under tests/ and say how many.",
        20: "Count the Python files under src/ and report the number of lines in each one.",
        25: "Go on.",
    }
    history = [ASK]
    spawned: list[tuple[int, int]] = []  # (the child's request, the parent's turn)
    for t in range(30):
        made = [call("read_file", path=f"src/module_{t}/main.py")]
        if t in prompts:
            made.insert(0, call("delegate", prompt=prompts[t]))
        turn = rt.send(history, calls(*made))
        if t in prompts:
            wrapped = prompts[t] if len(prompts[t]) < 8 else f"<task>\n{prompts[t]}\n</task>"
            rt.send([user(Text(wrapped))], text("Done."))
            spawned.append((rt.seq, t))
        history += [turn, results(turn, "contents")]
    placed = roles(rt)
    convs = placed.conversations
    assert [(convs[s.child].first.seq, s.turn, s.prompt) for s in placed.spawns] == [
        (seq, t, prompts[t]) for seq, t in spawned
    ]
    assert {s.source for s in placed.spawns} == {0}


def test_options_that_match_nothing_are_said_by_name() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A"), call("fork", directive="B")))
    rt.send(child_history([ASK], turn, "A"), text("done"))
    assert roles(rt).unmatched == (), "the default tag is in the child's message"
    options = GroupOptions(fork_tag="<worker-task>", fork_tool="spawn", directive_key="task")
    found = roles(rt, options).unmatched
    assert found == (
        "the fork tag '<worker-task>' (fork_tag of the script, or --fork-tag) matched nothing:"
        " no request's new user text holds it, so a fork child is known only by a directive"
        " it repeats",
        "--fork-tool 'spawn' matched nothing: no call names it (the model called fork)",
        "--directive-key 'task' matched nothing: no fork call has that argument (they have"
        " directive)",
    )
    assert roles(rt, GroupOptions(fork_tool="fork", directive_key="directive")).unmatched == ()


def test_a_capture_without_calls_has_nothing_to_match() -> None:
    rt = Runtime()
    rt.send([ASK], text("hello"))
    assert roles(rt, GroupOptions(fork_tag="<none>", fork_tool="x")).unmatched == ()


def test_a_session_fork_mark_no_request_carries_is_said_calls_or_not() -> None:
    rt = Runtime()
    rt.send([ASK], text("hello"), mark="parent")
    assert roles(rt, GroupOptions(session_fork_mark="resume")).unmatched == (
        "--session-fork 'resume' matched nothing: no request carries that script mark, so no"
        " session fork was declared",
    )
    assert roles(rt, GroupOptions(session_fork_mark="parent")).unmatched == ()


def test_the_report_says_which_option_matched_nothing() -> None:
    from harness.reports import capture_json, capture_text

    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A")), mark="parent")
    rt.send(child_history([ASK], turn, "A"), text("done"))
    result = check_records(rt.records, options=GroupOptions(fork_tag="<x>"))
    out = capture_text(result)
    assert "\nnote: the fork tag '<x>' (fork_tag of the script, or --fork-tag) matched" in out
    assert capture_json(result).count(b"the fork tag '<x>'") == 1
