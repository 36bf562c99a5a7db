"""The readers' inline checks of the usual item give exactly what the plain checks give,
on any item: the same value, the same error."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import DialectError, _memo, anthropic, get_dialect
from harness.dialects import openai_responses as responses
from harness.dialects._base import Segment
from harness.model import Preset, Request

_BP = "prompt_cache_breakpoint"


class _Str(str):
    pass


class _List(list[Any]):
    pass


_PARTS = st.sampled_from(
    [
        [],
        [{"type": "input_text", "text": "a"}],
        [{"type": "input_text", "text": "a", _BP: {}}],
        ["text", {_BP: {"ttl": "1h"}}],
        _List([{_BP: {}}]),
        ({_BP: {}},),
    ]
)
_VALUES = st.one_of(
    st.sampled_from(
        [None, "message", "user", "assistant", "developer", "x", "function_call", 1, True]
    ),
    st.sampled_from([_Str("message"), _Str("user"), "item_reference", {}, ("a",)]),
    _PARTS,
)
_KEYS = st.sampled_from(["type", "role", "content", "output", "id", "status", _BP, "name"])
_ITEMS = st.one_of(
    st.dictionaries(_KEYS, _VALUES, max_size=6),
    st.sampled_from([None, "item", [], 3]),
)


def _plain(k: int, item: Any) -> tuple[str, Segment] | str:
    try:
        return responses._checked_kind(item, k), Segment(f"input[{k}]", responses._prompted(item))
    except DialectError as e:
        return str(e)


def _fast(k: int, item: Any) -> tuple[str, Segment] | str:
    try:
        return responses._item_read(k, item)
    except DialectError as e:
        return str(e)


def _shape(read: tuple[str, Segment] | str) -> Any:
    """A reading with the types of its values: equality alone takes a subclass for its base."""
    if isinstance(read, str):
        return read
    kind, segment = read
    return (type(kind), kind, segment.name, repr(segment.value), type(segment.value))


@settings(max_examples=600, deadline=None)
@given(_ITEMS, st.integers(0, 12))
def test_an_item_reads_as_the_plain_checks_read_it(item: Any, k: int) -> None:
    assert _shape(_fast(k, item)) == _shape(_plain(k, item))


def test_the_usual_item_is_the_segment_itself() -> None:
    item = {"type": "message", "role": "user", "content": "hi"}
    assert responses._item_read(0, item)[1].value is item
    marked = {"role": "user", "content": [{"type": "input_text", "text": "a", _BP: {}}]}
    kind, segment = responses._item_read(2, marked)
    assert kind == "message"
    assert segment.value == {
        "role": "user",
        "content": [{"type": "input_text", "text": "a"}],
    }
    assert marked["content"][0][_BP] == {}  # the body is not changed


def _system(name: str, text: str) -> dict[str, Any]:
    return (
        {"role": "system", "content": text}
        if name == "openai"
        else {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": text}],
        }
    )


def _turns(name: str, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        out.append({"role": "user", "content": f"q{i}"})
        out.append({"role": "assistant", "content": f"a{i}"})
    return out


@pytest.mark.parametrize("name", ["openai", "openai-responses"])
@pytest.mark.parametrize("systems", [0, 1, 3, 9])
@pytest.mark.parametrize("cut", [0, 1, 2, 5, 11])
def test_a_body_sharing_items_by_object_reads_as_read_alone(
    name: str, systems: int, cut: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The history taken as read (fewer, as many or more items than the leading system
    ones) and the rest walked give the request a fresh reading gives."""
    monkeypatch.setattr(_memo, "_FEW", 0)
    field = "messages" if name == "openai" else "input"
    dialect = get_dialect(name)
    items = [_system(name, f"s{i}") for i in range(systems)] + _turns(name, 4)
    parent = {"model": "m", field: items}
    child = {"model": "m", field: [*items[:cut], {"role": "user", "content": "new"}]}
    _memo.forget()
    alone = dialect.to_request(copy.deepcopy(child))
    kept = min(cut, systems)  # the leading system items the child keeps are its system
    assert alone.preset.system == tuple(f"s{i}" for i in range(kept))
    assert len(alone.history) == len(child[field]) - kept
    for body in (parent, child):
        with _memo.vouched([body[field]]):
            read = dialect.to_request(body)
    assert read == alone
    assert [m.wire for m in read.history] == [m.wire for m in alone.history]
    assert read.preset == alone.preset


def _plain_blocks(names: frozenset[str], segment: str, count: int) -> dict[int, str]:
    """``_Marks.blocks`` as it reads without its shortcut: every block's name built."""
    out = {j: f"{segment}.content[{j}]" for j in range(count)}
    marked = {j: name for j, name in out.items() if name in names}
    if segment in names and count:
        marked[count - 1] = segment
    return marked


_NAMES = st.sampled_from(
    [
        "messages[1]",
        "messages[1].content[0]",
        "messages[1].content[2]",
        "messages[10].content[0]",
        "messages[1].content[x]",
        "messages[1].content[0].content[1]",
        "messages[1].content[0].content[",
        ".content[1]",
        "messages[1].content[",
        "tools[0]",
        "system",
        "",
    ]
)
_SEGMENTS = st.sampled_from(
    ["messages[1]", "messages[10]", "messages[1].content[0]", "", "messages[2]", "tools[0]"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_NAMES, max_size=5), _SEGMENTS, st.integers(0, 4))
def test_marked_blocks_are_those_every_name_built_finds(
    names: list[str], segment: str, count: int
) -> None:
    marks = anthropic._Marks(Request(Preset(), (), tuple(names)))
    assert marks.blocks(segment, count) == _plain_blocks(frozenset(names), segment, count)


_BLOCKS = st.lists(
    st.sampled_from(
        [{}, {"type": "text"}, {"cache_control": {}}, "cache_control", 1, None, [], _Str("x")]
    ),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(_BLOCKS)
def test_unmarked_blocks_are_told_as_a_plain_loop_tells_them(blocks: list[Any]) -> None:
    plain = all(type(b) is dict and "cache_control" not in b for b in blocks)
    assert anthropic._all_unmarked(blocks) is plain
