"""Content of a conversation apart from its rendering: what is lost, what differs."""

from harness.model import FunctionCall, FunctionResponse, Message, Text, Thinking, freeze
from harness.rules._content import (
    _identical,
    arguments_value,
    content_item,
    content_items,
    content_lost,
    embedded_values,
    rendering_differences,
    result_value,
    schema_value,
)

CALL = Message("model", (Text("Looking."), FunctionCall("search", freeze({"q": "x"}), id="c1")))
RESULT = Message("user", (FunctionResponse("search", {"output": "found"}, id="c1"),))
HISTORY = (Message("user", (Text("Find x."),)), CALL, RESULT)


def test_equal_messages_lose_nothing_and_differ_in_nothing() -> None:
    copy = tuple(Message(m.role, tuple(m.parts)) for m in HISTORY)
    assert content_lost(HISTORY, copy) is None
    assert content_lost(HISTORY, HISTORY) is None
    assert rendering_differences(HISTORY, copy) == []


def test_a_changed_call_is_lost_content_where_it_should_be() -> None:
    changed = Message("model", (Text("Looking."), FunctionCall("search", freeze({"q": "y"}))))
    loss = content_lost(HISTORY, (HISTORY[0], changed, RESULT))
    assert loss is not None
    assert (loss.at, loss.expected.kind) == (1, "call")
    assert "the call search" in loss.describe()


def test_a_missing_result_is_lost_past_the_end() -> None:
    loss = content_lost(HISTORY, HISTORY[:2])
    assert loss is not None
    assert (loss.at, loss.expected.kind, loss.changed) == (2, "result", None)


def test_thinking_and_whitespace_are_rendering_choices() -> None:
    mine = (Message("model", (Thinking("hmm"), Text("Done  now."))),)
    theirs = (Message("model", (Text("Done now."),)),)
    assert content_lost(mine, theirs) is None
    said = rendering_differences(mine, theirs)
    assert "thinking parts dropped or redacted" in said
    assert [i.value for i in content_items(theirs)] == ["Done now."]


def test_numbers_python_takes_for_equal_are_still_lost_content() -> None:
    def calling(value: object) -> tuple[Message, ...]:
        return (Message("model", (FunctionCall("search", freeze({"q": value}), id="c1"),)),)

    assert calling(1) == calling(True)  # the neutral model's equality, as Python's
    for other in (True, 1.0):
        loss = content_lost(calling(1), calling(other))
        assert loss is not None
        assert (loss.at, loss.expected.kind) == (0, "call")
    assert content_lost(calling(1), calling(1)) is None


class _Shown(str):
    """A text that is equal to a plain one but written otherwise."""

    def __repr__(self) -> str:
        return "shown"


_EDGE = [
    Message("user", (Text("1"),)),
    Message("user", (Text("1", "sig"),)),
    Message("user", (Text(_Shown("1")),)),
    Message("user", (Text("1", _Shown("sig")),)),
    Message("user", (Text(1),)),  # type: ignore[arg-type]
    Message("user", (Text(True),)),  # type: ignore[arg-type]
    Message("user", (Text(1.0),)),  # type: ignore[arg-type]
    Message("user", (Text("1"), Text("2"))),
    Message("model", (Text("1"),)),
    Message(_Shown("user"), (Text("1"),)),  # type: ignore[arg-type]
    Message("model", (Thinking("1"),)),
    Message("model", (Thinking("1", redacted=1),)),  # type: ignore[arg-type]
    Message("model", (FunctionCall("f", freeze({"a": 1})),)),
    Message("model", (FunctionCall("f", freeze({"a": True})),)),
    Message("model", (FunctionCall("f", freeze({"a": 1.0})),)),
]


def test_identical_messages_are_those_equal_with_equal_reprs() -> None:
    """The shortcut for plain texts gives what comparing the reprs gives, on values equal
    in Python but written otherwise."""
    for a in _EDGE:
        for b in _EDGE:
            assert _identical(a, b) is (a is b or (a == b and repr(a) == repr(b))), (a, b)


def test_the_same_messages_lose_nothing_and_render_alike() -> None:
    """``same_messages`` lets parent-faithful skip both comparisons: where it holds,
    nothing is lost and no rendering difference is said; values equal in Python but
    written apart (1, 1.0, true) are not the same messages."""
    from harness.rules._content import content_lost, rendering_differences, same_messages

    def call(value: object) -> Message:
        return Message("model", (FunctionCall("f", freeze({"n": value}), id="c"),))

    runs = [
        (),
        (Message("user", (Text("hi"),)),),
        (Message("user", (Text("hi "),)),),
        (call(1),),
        (call(1.0),),
        (call(True),),
        (Message("user", (Text("hi"),)), call(1)),
    ]
    for a in runs:
        for b in runs:
            if same_messages(a, b):
                assert content_lost(a, b) is None
                assert rendering_differences(a, b) == []
            assert same_messages(a, b) == (a is b or repr(a) == repr(b))


def test_one_parts_item_is_that_of_the_part_alone_in_a_message() -> None:
    """``content_item`` gives what ``content_items`` gives for a one-part message, for
    every part of the scenarios (texts of whitespace only, calls, results, images, thinking)."""
    from harness.model import Image

    from .scenarios import BY_ID

    parts = [(m.role, p) for s in BY_ID.values() for m in s.history for p in m.parts] + [
        ("user", Text(" \n ")),
        ("model", Thinking("t")),
        ("user", Image(mime_type="image/png", data="AAAA")),
        ("user", FunctionResponse("c", "f", freeze({"output": "[1]"}), is_error=True)),
    ]
    for role, part in parts:
        alone = content_items((Message(role, (part,)),))  # type: ignore[arg-type]
        assert [content_item(role, part)] == alone or (
            alone == [] and content_item(role, part) is None
        )


def test_call_arguments_compare_by_value() -> None:
    # absent arguments are the empty object (Gemini reads a functionCall without args so)
    assert arguments_value(None) == arguments_value(freeze({})) == "{}"
    # key order aside; JSON text decoded (arguments that did not decode to an object)
    spelled = arguments_value(freeze({"b": 1, "a": [2, {"d": 3, "c": 4}]}))
    assert spelled == arguments_value(freeze({"a": [2, {"c": 4, "d": 3}], "b": 1}))
    assert spelled == arguments_value('{"b": 1, "a": [2, {"d": 3, "c": 4}]}')
    # values stay apart
    assert arguments_value(freeze({"a": 1})) != arguments_value(freeze({"a": 1.0}))
    assert arguments_value(freeze({"a": "1"})) != arguments_value(freeze({"a": 1}))
    empty = (Message("model", (FunctionCall("uptime", None),)),)
    assert content_lost((Message("model", (FunctionCall("uptime", freeze({})),)),), empty) is None


def test_results_compare_by_value_in_every_wrapping() -> None:
    value = result_value(freeze({"zone": "eu", "n": [1, 2]}))
    assert value == '{"n":[1,2],"zone":"eu"}'
    blocks = freeze(
        [{"type": "text", "text": '{"zone": "eu",'}, {"type": "text", "text": '"n":[1,2]}'}]
    )
    for spelled in (
        '{"zone":"eu","n":[1,2]}',  # JSON text, another key order
        freeze({"output": '{"n": [1, 2], "zone": "eu"}'}),  # wrapped JSON text
        freeze([{"type": "text", "text": '{"zone":"eu","n":[1,2]}'}]),  # one text block
        blocks,  # JSON text split over text blocks
        freeze({"output": freeze({"zone": "eu", "n": [1, 2]})}),
    ):
        assert result_value(spelled) == value, spelled
    assert result_value(freeze({"zone": "us", "n": [1, 2]})) != value
    assert result_value("two  words\n") == result_value(
        freeze([{"type": "text", "text": "two words"}])
    )


def test_every_spelling_of_no_parameters_is_one_schema() -> None:
    empty = schema_value(None)
    for spelled in (
        freeze({}),
        freeze({"type": "object"}),
        freeze({"type": "object", "properties": {}}),
        freeze({"properties": {}, "type": "object"}),  # Go's sorted default
        freeze({"type": "object", "properties": {}, "required": []}),
    ):
        assert schema_value(spelled) == empty, spelled
    path = freeze({"type": "object", "properties": {"path": {"type": "string"}}})
    assert schema_value(path) != empty
    assert schema_value(path) == schema_value(
        freeze({"properties": {"path": {"type": "string"}}, "type": "object"})
    )
    assert schema_value(freeze({"type": "object", "additionalProperties": False})) != empty


def test_json_written_in_a_text_is_read_by_value() -> None:
    text = 'Context: {"zone": "eu", "n": [1, 2]} and [3, {"b": 1, "a": 2}]; not {json} nor [x'
    assert embedded_values(text) == ['{"n":[1,2],"zone":"eu"}', '[3,{"a":2,"b":1}]']
    assert embedded_values("no json here {} []") == []


def test_call_arguments_nested_past_orjsons_depth_are_compared_not_raised() -> None:
    """A mutated log once nested a call's argument 300 lists deep: readable (orjson reads
    1,024 levels), but orjson writes 254 at most; the comparison writes it piece by piece."""
    deep: object = "A: list the files"
    for _ in range(300):
        deep = [deep]
    nested = Message("model", (FunctionCall("fork", freeze({"directive": deep}), id="c1"),))
    flat = Message("model", (FunctionCall("fork", freeze({"directive": "x"}), id="c1"),))
    assert content_lost((nested,), (nested,)) is None
    loss = content_lost((nested,), (flat,))
    assert loss is not None
    assert loss.expected.kind == "call"
