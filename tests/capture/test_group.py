"""Conversations by prefix (harness/capture/_group.py): next turns, branches, child
messages at the tip, the parent mark, retries, and the helpers the roles use."""

from __future__ import annotations

from harness.capture import GroupOptions, Observed, Origin, group, observe
from harness.capture._group import added_text, directive_of, model_turn
from harness.model import FunctionCall, Message, Preset, Text, freeze

from .simulate import ASK, TOOLS, Runtime, call, calls, child_history, results, text, user


def requests(rt: Runtime) -> tuple[Observed, ...]:
    used, _ = observe(rt.records)
    return used


def shape(rt: Runtime, **options: str) -> list[tuple[tuple[int, ...], Origin | None]]:
    grouping = group(requests(rt), GroupOptions(**options))  # type: ignore[arg-type]
    return [(c.seqs, c.origin) for c in grouping.conversations]


def test_next_turns_join_one_conversation() -> None:
    rt = Runtime()
    first = rt.send([ASK], calls(call("read_file", path="a")))
    second = rt.send((ASK, first, results(first, "x")), text("ok"))
    rt.send((ASK, first, results(first, "x"), second, user(Text("more"))), text("done"))
    assert shape(rt) == [((1, 2, 3), None)]


def test_a_child_message_at_the_tip_starts_a_child_not_a_next_turn() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A: list")))
    rt.send(child_history([ASK], turn, "A: list"), text("child"))
    rt.send((ASK, turn, results(turn, "started")), text("parent"))
    assert shape(rt) == [((1, 3), None), ((2,), Origin(0, 0))]


def test_a_request_marked_parent_continues_even_with_the_tag() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A")), mark="parent")
    quoted = user(*results(turn, "ok").parts, Text("It was told: <fork-boilerplate> ..."))
    rt.send((ASK, turn, quoted), text("x"), mark="parent")
    assert shape(rt) == [((1, 2), None)]
    assert shape(rt, parent_mark="main") == [((1,), None), ((2,), Origin(0, 0))]


def test_a_request_extending_an_older_turn_branches() -> None:
    rt = Runtime()
    first = rt.send([ASK], text("one"))
    rt.send((ASK, first, user(Text("two"))), text("ok"))
    rt.send((ASK, first, user(Text("other"))), text("ok"))
    assert shape(rt) == [((1, 2), None), ((3,), Origin(0, 0))]


def test_retries_are_left_out_and_identical_children_kept() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="same"), call("fork", directive="same")))
    kid = child_history([ASK], turn, "same")
    rt.send(kid, text("one"))
    rt.send(kid, text("two"))  # the sibling with the same directive
    after = (ASK, turn, results(turn, "started"))
    second = rt.send(after, text("parent"))
    rt.send((*after, second, user(Text("again"))), text("x"))
    rt.send((*after, second, user(Text("again"))), text("x"))  # a retry
    grouping = group(requests(rt))
    assert [(c.seqs, c.origin) for c in grouping.conversations] == [
        ((1, 4, 5), None),
        ((2,), Origin(0, 0)),
        ((3,), Origin(0, 0)),
    ]
    assert [(r.seq, r.reason) for r in grouping.retries] == [(6, "repeats request 5 (a retry)")]


def test_dialects_are_not_mixed_by_the_caller() -> None:
    rt = Runtime("anthropic")
    first = rt.send([ASK], text("one"))
    rt.send((ASK, first, user(Text("two"))), text("ok"))
    assert shape(rt) == [((1, 2), None)]


def test_grouping_a_long_log_is_fast() -> None:
    rt = Runtime()
    history: list[Message] = [ASK]
    for i in range(200):
        turn = rt.send(history, text(f"turn {i}"))
        history += [turn, user(Text(f"next {i}"))]
    grouping = group(requests(rt))
    assert len(grouping.conversations) == 1


def test_directive_of() -> None:
    call_ = FunctionCall("fork", freeze({"n": 3, "label": " ", "directive": "go", "x": "y"}))
    assert directive_of(call_, None) == "go"
    assert directive_of(call_, "x") == "y"
    assert directive_of(call_, "n") is None
    assert directive_of(FunctionCall("fork", "raw text"), None) is None


def test_added_text_reads_only_new_user_text_parts() -> None:
    model = Message("model", (Text("model text"),))
    history = (ASK, model, user(Text("one"), Text("two")))
    assert added_text(history, 1) == "one\ntwo"
    assert added_text(history, 3) == ""


def test_model_turn_from_the_reply_or_the_agents_copy() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("read_file", path="a"), text="Reading."))
    rt.send((ASK, turn, results(turn, "x")), text("ok"))
    used = requests(rt)
    assert model_turn(used, 0) == turn
    assert model_turn(used, 1) == Message("model", (Text("ok"),))
    unrecorded = [Observed(r.seq, r.dialect, r.body, r.request) for r in used]
    assert model_turn(unrecorded, 0) == turn
    assert model_turn(unrecorded, 1) is None
    assert model_turn(unrecorded[:1], 0, unrecorded[1]) == turn


def test_a_side_request_with_its_own_system_and_tools_is_its_own_conversation() -> None:
    rt = Runtime()
    first = rt.send([ASK], text("Hello."))
    extractor = Preset(system=("Extract memories.",), tools=(TOOLS[0],))
    rt.send([ASK, first, user(Text("List what to remember."))], text("none"), preset=extractor)
    rt.send([ASK, first, user(Text("Thanks."))], text("Bye."))
    used, _ = observe(rt.records)
    convs = group(used).conversations
    assert [c.seqs for c in convs] == [(1, 3), (2,)]
    assert convs[1].origin == Origin(0, 0)


def test_a_next_turn_that_changes_only_its_system_prompt_stays_in_the_conversation() -> None:
    rt = Runtime()
    first = rt.send([ASK], text("Hello."))
    dated = Preset(system=("You are a careful agent. Today is Monday.",), tools=TOOLS)
    rt.send([ASK, first, user(Text("Thanks."))], text("Bye."), preset=dated)
    used, _ = observe(rt.records)
    assert [c.seqs for c in group(used).conversations] == [(1, 2)]
