"""The readers' inline checks of the usual item give exactly what the plain checks give,
on any item: the same value, the same error."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import DialectError
from harness.dialects import openai_responses as responses
from harness.dialects._base import Segment

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
