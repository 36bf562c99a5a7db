from harness.dialects import get_dialect
from harness.prefix import PrefixStream, locate, prefix_stream
from harness.rules._evidence import at, between, from_divergence, json_start, occurrences

ANTHROPIC = get_dialect("anthropic")


def stream(*texts: str) -> PrefixStream:
    body = {"messages": [{"role": "user", "content": t} for t in texts]}
    return prefix_stream(ANTHROPIC.parse(body))


def test_equal_runs_give_no_evidence() -> None:
    a = stream("one", "two")
    assert between(a.frames, a.frames, body="children[0]", against="parent", what="x") is None


def test_a_differing_frame_is_located_in_the_bodys_own_offsets() -> None:
    expected = stream("one", "two").frames[1:]
    actual = stream("a much longer first message", "twice").frames[1:]
    found = between(expected, actual, body="children[0]", against="parent", what="history")
    assert found is not None
    assert found.segment == found.against_segment == "messages[1]"
    assert found.path == "messages[1].content"
    assert found.reason == "text differs from byte 2 of the string on"
    assert found.offset is not None
    local = found.offset - actual[0].start
    assert actual[0].data[local : local + 3] == b"ice"
    assert found.window is not None
    assert found.window.text[found.window.caret] == "i"
    assert found.against_window is not None
    assert found.against_window.text[found.against_window.caret] == "o"
    assert found.diff == ('changed  messages[1].content: "two" -> "twice"',)


def test_missing_and_added_frames() -> None:
    short, long = stream("one").frames, stream("one", "two").frames
    missing = between(long, short, body="children[0]", against="parent", what="history")
    assert missing is not None
    assert (missing.segment, missing.against_segment) == (None, "messages[1]")
    assert missing.offset == short[-1].end
    assert missing.reason == "children[0]'s history ends before this segment of the parent's"
    added = between(short, long, body="children[0]", against="parent", what="history")
    assert added is not None
    assert (added.segment, added.offset) == ("messages[1]", long[1].start)
    assert added.reason == "children[0] adds this segment to the parent's history"


def test_from_divergence_keeps_the_locators_account() -> None:
    d = locate(stream("one", "two"), stream("one", "tw0"))
    assert d is not None
    found = from_divergence(d, body="follow_ups[0]", against="children[0]")
    assert (found.body, found.against, found.offset) == ("follow_ups[0]", "children[0]", d.offset)
    assert found.path == d.path
    assert found.diff


def test_occurrences_and_pointing_evidence() -> None:
    frames = stream("find me", "and find me again").frames
    hits = list(occurrences(frames, b"find me"))
    assert [(f.name, offset - json_start(f)) for f, offset in hits] == [
        ("messages[0]", 26),
        ("messages[1]", 30),
    ]
    assert list(occurrences(frames, b"")) == []
    frame, offset = hits[1]
    found = at(frame, offset, body="children[0]", reason="here")
    assert (found.segment, found.path, found.reason) == ("messages[1]", "messages[1]", "here")
    assert found.window is not None
    assert found.window.text[found.window.caret :].startswith("find me")
    assert at(None, None, body="outcome", reason="why").window is None
