import pytest

from harness.dialects import get_dialect
from harness.prefix import byte_window, compare, structural_diff
from harness.reports._escape import caret_pad, display_width


def diverge(parent_text: str, fork_text: str, **extra: object):  # type: ignore[no-untyped-def]
    d = get_dialect("openai")
    parent = d.parse({"messages": [{"role": "user", "content": parent_text}]})
    fork = d.parse({"messages": [{"role": "user", "content": fork_text, **extra}]})
    divergence = compare(parent, fork).divergence
    assert divergence is not None
    return divergence


def test_window_marks_the_first_differing_byte() -> None:
    d = diverge("a" * 100 + "X" + "b" * 100, "a" * 100 + "Y" + "b" * 100)
    window = byte_window(d.fork_frame, d.offset, context=10)
    assert window.text == "…aaaaaaaaaaYbbbbbbbbb…"
    assert window.text[window.caret] == "Y"
    parent = byte_window(d.parent_frame, d.offset, context=10)
    assert parent.text[parent.caret] == "X"


def test_window_never_splits_a_character_and_escapes_controls() -> None:
    d = diverge("ééé\tX", "ééé\tY")
    window = byte_window(d.fork_frame, d.offset, context=3)
    assert "\ufffd" not in window.text
    assert "\\t" in window.text
    assert window.text[window.caret] == "Y"


def test_window_of_an_ended_stream() -> None:
    assert byte_window(None, 10).text == "(the prefix ends here)"


def test_structural_diff_lists_changes_with_body_paths() -> None:
    d = diverge("hello", "hello", name="bob")
    assert structural_diff(d) == ['added    messages[0].name = "bob"']
    d = diverge("Path to the file", "Path of the file")
    assert structural_diff(d) == [
        'changed  messages[0].content: "Path to the file" -> "Path of the file"'
    ]


def test_structural_diff_is_capped() -> None:
    d = get_dialect("openai")
    parent = d.parse({"messages": [{"role": "user", "content": "x"}]})
    fork = d.parse(
        {"messages": [{"role": "user", "content": "x", **{f"k{i}": i for i in range(30)}}]}
    )
    divergence = compare(parent, fork).divergence
    assert divergence is not None
    lines = structural_diff(divergence, max_lines=5)
    assert len(lines) == 6
    assert lines[-1] == "... and 25 more changes"


def test_structural_diff_shows_a_long_string_around_where_it_changes() -> None:
    d = diverge("x" * 200 + " tail one", "x" * 200 + " tail two")
    (line,) = structural_diff(d)
    parent, fork = line.split(" -> ")
    assert "tail one" in parent
    assert "tail two" in fork


@pytest.mark.parametrize(
    ("parent_text", "fork_text", "under"),
    [
        ("日本語の説明", "日本語の解説", "解"),  # wide characters that part in their last byte
        ("ＡＢＣ", "ＡＢＤ", "Ｄ"),  # fullwidth
        ("ok 👍 then 😀", "ok 👍 then 😁", "😁"),  # emoji, two columns each
        ("ok 👍🏽 then X", "ok 👍🏽 then Y", "Y"),  # an emoji with a skin tone before it
        ("cafe\u0301 au lait", "cafe\u0300 au lait", "e"),  # the combining mark differs
        ("na\u0308ive X", "na\u0308ive Y", "Y"),  # a combining mark before the difference
    ],
)
def test_caret_sits_under_the_first_differing_character(
    parent_text: str, fork_text: str, under: str
) -> None:
    d = diverge(parent_text, fork_text)
    window = byte_window(d.fork_frame, d.offset, context=12)
    assert "\ufffd" not in window.text
    column = len(caret_pad(window.text, window.caret))
    # the characters left of the caret take exactly its columns, and the next one is `under`
    i = next(i for i in range(len(window.text)) if display_width(window.text[:i]) >= column)
    assert display_width(window.text[:i]) == column
    assert window.text[i] == under
