"""Conversations by prefix (harness/capture/_group.py): next turns, branches, child
messages at the tip, the parent mark, retries, and the helpers the roles use."""

from __future__ import annotations

from typing import Any

from harness.capture import GroupOptions, Ignored, Observed, Origin, group, observe
from harness.capture._group import Prefixes, added_text, directive_of, model_turn
from harness.capture._observe import observe_record
from harness.capture._stored import Stored
from harness.model import FunctionCall, Message, Preset, Text, freeze

from .simulate import (
    ASK,
    TOOLS,
    Runtime,
    call,
    calls,
    child_history,
    interleaved,
    long_conversation,
    results,
    text,
    user,
)


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


class _Counted:
    """The records' bodies, counting how many times a request is read back."""

    def __init__(self) -> None:
        self.fetched = 0

    def fetch(self, where: Any) -> tuple[bytes, Any]:
        self.fetched += 1
        return where.body, where.json

    def raw(self, where: Any) -> bytes:
        return bytes(where.body)


def hinted(rt: Runtime, order: Any = list) -> tuple[tuple[Observed, ...], _Counted]:
    """The runtime's requests read lazily, with the hints grouping notes while reading
    (in the order ``order`` gives the records)."""
    bodies, prefixes, stored = _Counted(), Prefixes(), Stored()
    used = []
    for record in order(rt.records):
        found = observe_record(record, stored, bodies, record)
        assert isinstance(found, Observed)
        prefixes.note(found)
        used.append(found)
    bodies.fetched = 0
    return tuple(used), bodies


def busy_runtime() -> Runtime:
    """Next turns, a fork child at the tip, siblings with one directive, a retry, a side
    request and a parent-marked turn carrying the tag."""
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A: list"), call("fork", directive="B")))
    kid = child_history([ASK], turn, "A: list")
    rt.send(kid, text("one"))
    rt.send(kid, text("two"))
    after = (ASK, turn, results(turn, "started"))
    second = rt.send(after, text("parent"))
    rt.send((*after, second, user(Text("again"))), text("x"))
    rt.send((*after, second, user(Text("again"))), text("x"))
    extractor = Preset(system=("Extract memories.",), tools=(TOOLS[0],))
    rt.send((*after, second, user(Text("List what to remember."))), text("no"), preset=extractor)
    tagged = (*after, second, user(Text("again")), Message("model", (Text("x"),)))
    rt.send((*tagged, user(Text("<fork-boilerplate> go on"))), text("y"), mark="parent")
    return rt


def test_grouping_with_the_hints_noted_while_reading_reads_nothing_back() -> None:
    rt = busy_runtime()
    used, bodies = hinted(rt)
    grouping = group(used)
    assert bodies.fetched == 0
    plain = group(requests(rt))
    assert [(c.seqs, c.origin) for c in grouping.conversations] == [
        (c.seqs, c.origin) for c in plain.conversations
    ]
    assert (
        grouping.retries == plain.retries == (Ignored(6, "repeats request 5 (a retry)", "retry"),)
    )
    assert len(grouping.conversations) == 4


def test_hints_give_way_when_the_requests_are_not_in_reading_order() -> None:
    rt = busy_runtime()
    used, bodies = hinted(rt, order=lambda records: list(reversed(records)))
    grouping = group(used)  # placed in seq order: the reverse of the reading
    plain = group(requests(rt))
    assert [(c.seqs, c.origin) for c in grouping.conversations] == [
        (c.seqs, c.origin) for c in plain.conversations
    ]
    assert bodies.fetched > 0
    forward, _ = hinted(rt)
    mixed = group([*forward[::2], *requests(rt)[1::2]])  # some without hints: none used
    assert [c.seqs for c in mixed.conversations] == [c.seqs for c in plain.conversations]


def test_a_hint_is_used_only_when_its_base_is_among_the_requests_grouped() -> None:
    rt = Runtime()
    first = rt.send([ASK], text("one"))
    second = rt.send((ASK, first, user(Text("two"))), text("ok"))
    rt.send((ASK, first, user(Text("two")), second, user(Text("three"))), text("ok"))
    used, _ = hinted(rt)
    assert [c.seqs for c in group([used[0], used[2]]).conversations] == [(1, 3)]
    assert [c.seqs for c in group(used[1:]).conversations] == [(2, 3)]


def test_many_identical_first_requests_each_start_a_conversation() -> None:
    rt = Runtime()
    for _ in range(300):
        rt.send([ASK], text("Not yet."))
    assert shape(rt) == [((seq,), None) for seq in range(1, 301)]


def test_a_turn_polled_many_times_is_one_turn_and_the_rest_retries() -> None:
    rt = Runtime()
    first = rt.send([ASK], text("one"))
    polled = (ASK, first, user(Text("Is the build green?")))
    for _ in range(300):
        answer = rt.send(polled, text("Not yet."))
    rt.send((*polled, answer, user(Text("Now?"))), text("Yes."))
    grouping = group(requests(rt))
    assert [(c.seqs, c.origin) for c in grouping.conversations] == [((1, 2, 302), None)]
    assert [i.seq for i in grouping.retries] == list(range(3, 302))
    assert {i.reason for i in grouping.retries} == {"repeats request 2 (a retry)"}


def test_interleaved_conversations_each_keep_their_own_turns() -> None:
    rt = Runtime()
    interleaved(rt, 60, 3)
    assert shape(rt) == [((k + 1, k + 61, k + 121), None) for k in range(60)]


def test_one_long_conversation_is_one_conversation() -> None:
    rt = Runtime()
    long_conversation(rt, 100)
    assert shape(rt) == [(tuple(range(1, 101)), None)]
