import copy
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import get_dialect
from harness.prefix import byte_window, compare, structural_diff
from harness.prefix._explain import _deepdiff_lines, _describe, _path, _plain_changes
from harness.reports._escape import caret_pad, display_width


def diverge(parent_text: str, fork_text: str, **extra: object):  # type: ignore[no-untyped-def]
    d = get_dialect("openai")
    parent = d.parse({"messages": [{"role": "user", "content": parent_text}]})
    fork = d.parse({"messages": [{"role": "user", "content": fork_text, **extra}]})
    divergence = compare(parent, fork, strict=True).divergence
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
    divergence = compare(parent, fork, strict=True).divergence
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


def _diff_of(parent: dict[str, object], fork: dict[str, object]) -> list[str]:
    d = get_dialect("openai")
    comparison = compare(d.parse(parent), d.parse(fork), strict=True)
    assert comparison.divergence is not None
    return structural_diff(
        comparison.divergence, parent=comparison.parent.frames, fork=comparison.fork.frames
    )


USER = {"role": "user", "content": "Fix the failing test."}
MODEL = {"role": "assistant", "content": "On it."}
MEMORY = {"role": "system", "content": "Memory: the user likes tabs."}


def test_a_segment_inserted_before_the_parents_continuation_is_said() -> None:
    lines = _diff_of({"messages": [USER, MODEL]}, {"messages": [USER, MEMORY, MODEL, USER]})
    assert lines == [
        'segment messages[1] inserted: {"role":"system","content":"Memory: the user li…',
        "then the fork goes on with the parent's messages[1] and on (its messages[2])",
    ]


def test_a_segment_left_out_is_said() -> None:
    lines = _diff_of({"messages": [USER, MEMORY, MODEL]}, {"messages": [USER, MODEL, USER]})
    assert lines[0].startswith("segment messages[1] removed: ")
    assert (
        lines[1] == "then the fork goes on with the parent's messages[2] and on (its messages[1])"
    )


def test_a_changed_segment_is_still_diffed_in_place() -> None:
    changed = {**MODEL, "content": "On it!"}
    lines = _diff_of({"messages": [USER, MODEL]}, {"messages": [USER, changed, USER]})
    assert lines == ['changed  messages[1].content: "On it." -> "On it!"']


def test_tools_are_matched_by_name_in_the_structural_diff() -> None:
    def tool(name: str, description: str) -> dict[str, object]:
        return {"type": "function", "function": {"name": name, "description": description}}

    parent = {"tools": [tool("agent", "Fork."), tool("read", "Read.")], "messages": [USER]}
    fork = {"tools": [tool("read", "Read a file.")], "messages": [USER]}
    assert _diff_of(parent, fork) == [
        "tool `agent` removed",
        "tool `read` changed: function.description: text differs from byte 4 of the string on",
        '  changed  tools[0].function.description: "Read." -> "Read a file."',
    ]
    # without the frames, the two tools at position 0 are compared with each other
    d = get_dialect("openai")
    divergence = compare(d.parse(parent), d.parse(fork), strict=True).divergence
    assert divergence is not None
    assert 'changed  tools[0].function.name: "agent" -> "read"' in structural_diff(divergence)


# The structural diff without DeepDiff (``_plain_changes``) must say what DeepDiff says: each
# pair it covers is compared with DeepDiff's own account of it.

_KEYS = st.sampled_from(["a", "b", "it's", 'say "hi"', "both ' and \"", "", "x-y", "root"])
_SCALARS = st.sampled_from(
    [0, 1, 1.0, True, False, None, "", "a", "b", -0.0, 0.0, 2**70, "a\nb", 2.5]
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=16,
)


def _plain_lines(parent: object, fork: object) -> list[str] | None:
    changes = _plain_changes(parent, fork)
    if changes is None:
        return None
    return [_describe(kind, _path(path, "seg"), a, b) for kind, path, a, b in changes]


@st.composite
def _edited(draw: st.DrawFn) -> tuple[object, object]:
    """A value and a copy of it with a few of its objects' and arrays' items changed."""
    parent = draw(_JSON)
    fork = copy.deepcopy(parent)
    for _ in range(draw(st.integers(0, 4))):
        node: object = fork
        for _ in range(draw(st.integers(0, 3))):
            inner = (
                node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
            )
            below = [v for v in inner if isinstance(v, dict | list)]
            if not below:
                break
            node = draw(st.sampled_from(below))
        if isinstance(node, dict):
            key = draw(st.sampled_from(sorted(node)) if node and draw(st.booleans()) else _KEYS)
            if key in node and draw(st.booleans()):
                del node[key]
            else:
                node[key] = draw(_JSON)
        elif isinstance(node, list):
            at = draw(st.integers(0, len(node)))
            if at < len(node) and draw(st.booleans()):
                node[at] = draw(_JSON)
            elif at < len(node) and draw(st.booleans()):
                del node[at]
            else:
                node.insert(at, draw(_JSON))
    return parent, fork


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.tuples(_JSON, _JSON), _edited()))
def test_the_plain_structural_diff_is_deepdiffs(pair: tuple[object, object]) -> None:
    parent, fork = pair
    lines = _plain_lines(parent, fork)
    if lines is not None:
        assert lines == _deepdiff_lines(parent, fork, "seg")


@pytest.mark.parametrize(
    ("parent", "fork"),
    [
        ({"a": 1}, {"a": True}),  # equal in Python, another type: a type change
        ({"a": 1}, {"a": 1.0}),
        ({"a": 0.0}, {"a": -0.0}),  # equal, and of one type: no change
        ([1, 2], [True, 2.0]),  # arrays of scalars equal in Python: difflib sees no change
        ([{"a": 1}], [{"a": 1}, {"b": 2}]),
        ([{"a": 1}, 3], [{"a": 2}]),
        ({"it's": 1, 'say "hi"': 2}, {"it's": 3, 'say "hi"': 4, "": 5}),
        ({"a": {"b": "x"}}, {"a": "x"}),
        ("Path to the file", "Path of the file"),
        ({"parts": [{"text": "a"}]}, {"parts": [{"text": "a"}, {"text": "b"}]}),
        ({"role": "system", "content": "x"}, {"type": "function", "function": {"name": "f"}}),
    ],
)
def test_the_plain_structural_diff_covers_plain_json(parent: object, fork: object) -> None:
    lines = _plain_lines(parent, fork)
    assert lines is not None
    assert lines == _deepdiff_lines(parent, fork, "seg")


def _nested(depth: int, leaf: object) -> object:
    return leaf if depth == 0 else {"a": _nested(depth - 1, leaf)}


@pytest.mark.parametrize(
    ("parent", "fork"),
    [
        ([1, 2], [1, 3]),  # arrays of scalars that differ: DeepDiff aligns them with difflib
        ([1, 2], [2, 1, 2]),
        ((1, 2), (1, 3)),  # not JSON
        ({1: "a"}, {1: "b"}),
        (_nested(20, 1), _nested(20, 2)),  # deeper than _PLAIN_DEPTH
    ],
)
def test_what_the_plain_structural_diff_leaves_to_deepdiff(parent: object, fork: object) -> None:
    assert _plain_changes(parent, fork) is None
    assert _deepdiff_lines(parent, fork, "seg")  # DeepDiff itself sees the change


def test_the_default_structural_diff_does_not_load_deepdiff() -> None:
    """A divergence in plain JSON is described without importing DeepDiff (and the numpy and
    pydantic it imports when they are installed)."""
    code = (
        "import sys\n"
        "from harness.dialects import get_dialect\n"
        "from harness.prefix import compare, structural_diff\n"
        "d = get_dialect('openai')\n"
        "p = d.parse({'messages': [{'role': 'user', 'content': 'a'}]})\n"
        "f = d.parse({'messages': [{'role': 'user', 'content': 'b', 'name': 'x'}]})\n"
        "lines = structural_diff(compare(p, f, strict=True).divergence)\n"
        "assert lines, lines\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('deepdiff', 'numpy')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_window_text_without_control_characters_is_shown_as_it_is() -> None:
    """The shortcut for text with nothing to escape gives what escaping each character does."""
    from harness.prefix._explain import _ESCAPES, _printable

    def slow(text: str) -> str:
        return "".join(
            _ESCAPES.get(c, f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7F else c)
            for c in text
        )

    for code in (*range(0x00, 0x100), 0x85, 0x2028, 0x3000, 0x1F600):
        text = f"a{chr(code)}b"
        assert _printable(text) == slow(text)
    assert _printable("") == ""
    assert _printable("plain é text") == "plain é text"
