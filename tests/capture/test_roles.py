"""Roles (harness/capture/_roles.py): the parent by mark, siblings matched to their calls,
children beyond the calls, spawns tied to the latest call, the fork tool learnt."""

from __future__ import annotations

from harness.capture import GroupOptions, Roles, assign_roles, group, observe
from harness.model import Text

from .simulate import ASK, Runtime, call, calls, child_history, results, text, user


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
