from collections.abc import Sequence
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness._bodies import _layout, decode_pair
from harness.dialects import Segment, get_dialect
from harness.prefix import Divergence, PrefixStream, StreamError, locate, prefix_stream
from harness.prefix import _stream as stream_module
from harness.prefix._stream import _shared, common_segments, common_via

from .pairs import IDS, PAIRS, Pair, slow_pair

BODY = {
    "model": "m",
    "tools": [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}],
    "messages": [{"role": "user", "content": "hé"}, {"role": "assistant", "content": "ok"}],
}


def test_frames_are_named_compact_and_newline_terminated() -> None:
    stream = prefix_stream(get_dialect("openai").parse(BODY))
    assert bytes(stream) == (
        b'tools[0]={"type":"function","function":{"name":"a","parameters":{"type":"object"}}}\n'
        + 'messages[0]={"role":"user","content":"hé"}\n'.encode()
        + b'messages[1]={"role":"assistant","content":"ok"}\n'
    )
    assert len(stream) == len(bytes(stream))
    assert [f.name for f in stream] == ["tools[0]", "messages[0]", "messages[1]"]
    assert stream.frames[1].start == stream.frames[0].end
    assert stream.frames[2].data == b'messages[1]={"role":"assistant","content":"ok"}\n'


def test_frame_at_finds_the_frame_holding_an_offset() -> None:
    stream = prefix_stream(get_dialect("openai").parse(BODY))
    for frame in stream:
        assert stream.frame_at(frame.start) is frame
        assert stream.frame_at(frame.end - 1) is frame
    assert stream.frame_at(len(stream)) is None


def test_settings_are_not_in_the_stream() -> None:
    a = get_dialect("openai").parse(BODY)
    b = get_dialect("openai").parse({**BODY, "model": "other", "temperature": 1.0})
    assert bytes(prefix_stream(a)) == bytes(prefix_stream(b))


def test_key_order_is_kept() -> None:
    reordered = orjson.loads(
        orjson.dumps(BODY).replace(
            b'"role":"user","content":"h\xc3\xa9"', b'"content":"h\xc3\xa9","role":"user"'
        )
    )
    a = bytes(prefix_stream(get_dialect("openai").parse(BODY)))
    b = bytes(prefix_stream(get_dialect("openai").parse(reordered)))
    assert a != b
    assert b'messages[0]={"content":"h\xc3\xa9","role":"user"}' in b


def test_anthropic_cache_markers_are_left_out() -> None:
    body = {
        "model": "m",
        "max_tokens": 10,
        "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
            }
        ],
    }
    stream = bytes(prefix_stream(get_dialect("anthropic").parse(body)))
    assert b"cache_control" not in stream
    assert b'system[0]={"type":"text","text":"sys"}' in stream


def deep_list(depth: int) -> object:
    deep: object = "x"
    for _ in range(depth):
        deep = [deep]
    return deep


@pytest.mark.parametrize("depth", [200, 253, 254, 300, 1_000, 1_023])
def test_segments_too_deep_for_orjson_are_encoded_as_orjson_would(depth: int) -> None:
    """orjson refuses to encode more than 254 levels; such a segment gets the same bytes."""
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"type": "function", "function": {"name": "a", "parameters": {"d": deep_list(depth)}}}
        ],
    }
    stream = prefix_stream(get_dialect("openai").parse(body))
    expected = '{"d":' + "[" * depth + '"x"' + "]" * depth + "}"
    frame = stream.frames[0]
    assert frame.json == b'{"type":"function","function":{"name":"a","parameters":' + (
        expected.encode() + b"}}"
    )
    assert stream.length == len(bytes(stream))
    fresh = prefix_stream(get_dialect("openai").parse(body))
    assert fresh.length == stream.length  # measured segment by segment, no frames kept
    assert fresh.starts_with(stream)
    assert stream.starts_with(fresh)


def test_integers_beyond_64_bits_are_encoded_exactly() -> None:
    """orjson cannot encode them; two that differ in their last digit are two streams."""

    def body(n: int) -> dict[str, object]:
        return {
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "a", "parameters": {"max": n}}}],
        }

    big = 2**64 + 1
    one, other = (prefix_stream(get_dialect("openai").parse(body(n))) for n in (big, big + 1))
    assert f'"max":{big}}}'.encode() in bytes(one)
    assert one.length == len(bytes(one))
    assert not other.starts_with(one)
    assert prefix_stream(get_dialect("openai").parse(body(big))).starts_with(one)


def test_starts_with_agrees_with_the_frames() -> None:
    d = get_dialect("openai")
    parent = prefix_stream(d.parse(BODY))
    more = {**BODY, "messages": [*BODY["messages"], {"role": "user", "content": "more"}]}
    longer = prefix_stream(d.parse(more))
    assert longer.starts_with(parent)
    assert bytes(longer).startswith(bytes(parent))
    assert not parent.starts_with(longer)
    assert parent.starts_with(prefix_stream(d.parse(BODY)))
    assert longer.length == len(bytes(longer))


@pytest.mark.parametrize(
    "content",
    ["h", "hé!", ["hé"]],  # a prefix of the string, a longer one, another type
)
def test_a_value_that_only_starts_the_same_is_not_a_prefix(content: object) -> None:
    d = get_dialect("openai")
    parent = {"messages": [{"role": "user", "content": "hé"}]}
    fork = {
        "messages": [{"role": "user", "content": content}, {"role": "assistant", "content": "x"}]
    }
    a, b = prefix_stream(d.parse(parent)), prefix_stream(d.parse(fork))
    assert not b.starts_with(a)
    assert not bytes(b).startswith(bytes(a))


def test_a_number_that_extends_is_not_a_prefix() -> None:
    d = get_dialect("openai")
    parent = {"messages": [{"role": "user", "content": "x", "n": 12}]}
    fork = {
        "messages": [{"role": "user", "content": "x", "n": 123}, {"role": "user", "content": "y"}]
    }
    assert not prefix_stream(d.parse(fork)).starts_with(prefix_stream(d.parse(parent)))


def stream_of(*values: object) -> PrefixStream:
    return PrefixStream(tuple(Segment(f"messages[{i}]", v) for i, v in enumerate(values)))


UNENCODABLE = {"x": object()}
"""A value no encoder takes: any attempt to encode it raises ``StreamError``."""


def test_a_comparison_stops_at_the_first_differing_segment() -> None:
    """Nothing after the first difference is encoded: the segment that cannot be encoded
    is never reached."""
    parent, fork = stream_of("a", "b", UNENCODABLE), stream_of("a", "c", UNENCODABLE)
    assert common_segments(parent, fork) == 1
    assert not fork.starts_with(parent)
    d = locate(parent, fork)
    assert d is not None
    assert (d.parent_frame, d.fork_frame) == (parent.frame(1), fork.frame(1))
    assert d.offset == len(b'messages[0]="a"\nmessages[1]="')
    with pytest.raises(StreamError, match=r"^messages\[2\] cannot be re-encoded as JSON"):
        _ = parent.length


def test_names_are_compared_before_any_encoding() -> None:
    a = PrefixStream((Segment("tools[0]", UNENCODABLE),))
    b = PrefixStream((Segment("messages[0]", UNENCODABLE),))
    assert not a.starts_with(b)
    assert common_segments(a, b) == 0


def test_a_frame_built_alone_is_the_one_in_the_frames() -> None:
    """Evidence finds a divergence's frame among the stream's frames by identity."""
    parent, fork = stream_of("a", "b", "c"), stream_of("a", "x", "c", "d")
    d = locate(parent, fork)
    assert d is not None
    assert d.fork_frame is not None
    assert fork.frames[1] is d.fork_frame
    assert parent.frames[1] is d.parent_frame
    assert [f.start for f in fork.frames] == [0, 16, 32, 48]
    assert fork.length == len(bytes(fork)) == fork.frames[-1].end


def test_a_fork_that_ends_early_diverges_where_it_ends() -> None:
    parent, fork = stream_of("a", "b", "c"), stream_of("a")
    d = locate(parent, fork)
    assert d is not None
    assert d.fork_frame is None
    assert d.parent_frame is parent.frame(1)
    assert (d.offset, d.path) == (fork.length, "messages[1]")
    assert d.parent_frame.start == fork.length


@pytest.mark.parametrize("values", [(), ("a",), ("a", {"b": [1, 2.5, None]}, "é" * 3)])
def test_length_measured_alone_is_the_streams_length(values: tuple[object, ...]) -> None:
    measured, built = stream_of(*values), stream_of(*values)
    assert measured.length == len(bytes(built))
    assert measured.length == built.length
    assert [measured.frame(i) for i in range(len(values))] == list(built.frames)


@pytest.mark.parametrize("tail", [("b",), ("c",), ("b", "d")])
def test_a_segment_orjson_refuses_midway_is_compared_and_measured_all_the_same(
    tail: tuple[object, ...],
) -> None:
    """The tight first loop hands over to the general one at an integer beyond 64 bits."""
    parent, fork = stream_of("a", 2**70, "b"), stream_of("a", 2**70, *tail)
    same = 3 if tail[0] == "b" else 2
    assert common_segments(parent, fork) == same
    assert fork.starts_with(parent) is (same == 3)
    assert (parent.length, fork.length) == (len(bytes(parent)), len(bytes(fork)))


def _streams(pair: Pair, folder: Path | None = None) -> tuple[PrefixStream, PrefixStream]:
    """The pair's streams: with the layouts ``decode_pair`` gives when read from ``folder``,
    else decoded one at a time with none."""
    warnings: list[str] = []
    if folder is not None:
        (folder / "p").write_bytes(pair.parent)
        (folder / "f").write_bytes(pair.fork)
        bodies = decode_pair(str(folder / "p"), str(folder / "f"), warnings=warnings)
    else:
        bodies = slow_pair(pair.parent, pair.fork, warnings)
    d = get_dialect("openai")
    parent, fork = d.parse(bodies.parent), d.parse(bodies.fork)
    return (
        prefix_stream(parent, bodies.parent_layout),
        prefix_stream(fork, bodies.fork_layout),
    )


def _divergence(d: Divergence | None) -> tuple[object, ...] | None:
    if d is None:
        return None
    frames = (d.parent_frame, d.fork_frame)
    return (d.offset, d.path, d.reason, *((f.name, f.start, f.json) if f else None for f in frames))


def _assert_alike(streams: Sequence[PrefixStream], plain: Sequence[PrefixStream]) -> None:
    """Two pairs of streams compare alike, and each stream has the lengths and frames
    (names, offsets, bytes) of its counterpart."""
    assert common_segments(*streams) == common_segments(*plain)
    assert _divergence(locate(*streams)) == _divergence(locate(*plain))
    for a, b in zip(streams, plain, strict=True):
        assert a.length == b.length
        assert [(f.name, f.start, f.json) for f in a.frames] == [
            (f.name, f.start, f.json) for f in b.frames
        ]


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_laid_out_streams_compare_and_measure_as_plain_ones(pair: Pair, tmp_path: Path) -> None:
    """Whatever the shortcuts take, the comparison, the lengths and every frame's offset
    are those of streams that encode every segment."""
    fast, slow = _streams(pair, tmp_path), _streams(pair)
    assert (_shared(*fast) or {}).get("messages", 0) == (pair.shared or 0)
    _assert_alike(fast, slow)


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_laid_out_streams_measured_alone_and_swapped(pair: Pair, tmp_path: Path) -> None:
    """Measured before any comparison, and compared fork against parent, the same too."""
    fast, slow = _streams(pair, tmp_path), _streams(pair)
    assert [s.length for s in fast] == [s.length for s in slow]
    fast, slow = _streams(pair, tmp_path), _streams(pair)
    assert common_segments(fast[1], fast[0]) == common_segments(slow[1], slow[0])
    assert fast[0].starts_with(fast[1]) is slow[0].starts_with(slow[1])
    assert fast[1].starts_with(fast[0]) is slow[1].starts_with(slow[0])


@pytest.mark.parametrize("touched", [(0,), (1,), (0, 3), (-1,), (2, -1)])
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_streams_with_frames_built_before_compare_and_measure_as_plain_ones(
    pair: Pair, touched: tuple[int, ...], tmp_path: Path
) -> None:
    """Frames built alone before the comparison (a rule's head frames, a divergence's) leave
    the comparison, the lengths and every offset as they are: the loops measure what is
    not measured yet, whether the layouts take a run or each segment is encoded."""
    for streams in (_streams(pair, tmp_path), _streams(pair)):
        slow = _streams(pair)
        for stream in streams:
            for index in touched:
                if abs(index) < len(stream.segments):
                    stream.frame(index % len(stream.segments))
        _assert_alike(streams, slow)


@pytest.mark.parametrize("touched", [(), (0,), (2,), (-1,), (-3,)])
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_streams_sharing_segment_objects_compare_and_measure_as_plain_ones(
    pair: Pair, touched: tuple[int, ...]
) -> None:
    """A fork whose leading segments are its parent's very objects (as a reader gives them
    for bytes both bodies share) is measured from one encoding of each, or from the size
    the other stream has measured: the same counts, offsets and frames as plain streams."""
    plain = _streams(pair)
    parent, fork = _streams(pair)
    shared = [
        p if p.name == f.name and stream_module._encode(p) == stream_module._encode(f) else f
        for p, f in zip(parent.segments, fork.segments, strict=False)
    ]
    fork = PrefixStream((*shared, *fork.segments[len(shared) :]))
    for third in (None, *touched):
        streams = (parent, fork)
        if third is not None:  # a fresh pair, one side measured (or framed) partly first
            streams = (PrefixStream(parent.segments), PrefixStream(fork.segments))
            streams[third % 2].frame(abs(third) % len(streams[third % 2].segments))
        _assert_alike(streams, plain)


def test_a_segment_that_is_not_the_bodys_own_item_is_encoded() -> None:
    """A value a dialect made (a cache marker removed) is not the body's item: its
    encoding is made, never read from the layout."""
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "a"}]},
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
            },
        ],
    }
    data = orjson.dumps(body)
    decoded = orjson.loads(data)
    layout = _layout(data, decoded, None, 0)
    assert layout is not None
    parsed = get_dialect("anthropic").parse(decoded)
    assert parsed.segments[0].value is decoded["messages"][0]
    assert parsed.segments[1].value is not decoded["messages"][1]
    laid_out, plain = prefix_stream(parsed, layout), prefix_stream(parsed)
    assert laid_out.length == plain.length == len(bytes(plain))
    assert b"cache_control" not in bytes(laid_out)


def test_a_layout_of_another_body_is_not_used() -> None:
    data = orjson.dumps(BODY)
    layout = _layout(data, orjson.loads(data), None, 0)
    parsed = get_dialect("openai").parse(orjson.loads(data))
    assert prefix_stream(parsed, layout)._layout is None


def test_shared_items_are_neither_encoded_nor_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the segments outside the shared items are encoded: the tool (before the
    messages in the stream, after them in the bytes), the parent's last message (its
    closing bracket is the fork's comma) and the fork's tail, which is measured alone."""
    pair = PAIRS[0]
    assert pair.name == "appended"
    parent, fork = _streams(pair, tmp_path)
    encoded: list[str] = []
    real = stream_module._encode

    def counted(segment: Segment) -> bytes:
        encoded.append(segment.name)
        return real(segment)

    monkeypatch.setattr(stream_module, "_encode", counted)
    assert locate(parent, fork) is None
    lengths = (parent.length, fork.length)
    assert encoded == ["tools[0]", "tools[0]", "messages[4]", "messages[4]"]
    assert lengths == (len(bytes(parent)), len(bytes(fork)))


@pytest.mark.parametrize("first_look", [1, 2, 64])
@pytest.mark.parametrize("copied", [(), (0,), (5,), (1, 2, 9), tuple(range(0, 12, 2))])
def test_runs_of_the_bodys_own_items_are_found_however_they_break(
    monkeypatch: pytest.MonkeyPatch, first_look: int, copied: tuple[int, ...]
) -> None:
    """Segments that are copies of the body's items (a dialect removed a marker) end a run;
    whatever the size of each look, the stream measures as one that encodes everything."""
    monkeypatch.setattr(stream_module, "_FIRST_LOOK", first_look)
    body = {"messages": [{"role": "user", "content": f"m{k}"} for k in range(12)]}
    data = orjson.dumps(body)
    decoded = orjson.loads(data)
    layout = _layout(data, decoded, None, 0)
    items = decoded["messages"]
    segments = tuple(
        Segment(f"messages[{k}]", dict(item) if k in copied else item)
        for k, item in enumerate(items)
    )
    laid_out = PrefixStream(segments, layout)
    runs = [stream_module._run(laid_out, i, len(items)) for i in range(len(items))]
    for i, run in enumerate(runs):
        assert (run is None) is (i in copied)
        if run is not None:
            assert run[3] == next((c for c in copied if c > i), len(items)) - i
    assert laid_out.length == PrefixStream(segments).length == len(bytes(PrefixStream(segments)))


def _streams_of(values: list[list[object]]) -> list[PrefixStream]:
    return [
        PrefixStream(tuple(Segment(f"messages[{i}]", v) for i, v in enumerate(vs))) for vs in values
    ]


_VALUES = [1, 1.0, True, "1", {"a": 1, "b": 2}, {"b": 2, "a": 1}, None, [1]]
"""Values that compare equal in Python yet encode differently, and the reverse."""


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_VALUES), max_size=6),
    st.tuples(st.integers(0, 6), st.lists(st.sampled_from(_VALUES), max_size=3)),
    st.tuples(st.integers(0, 6), st.lists(st.sampled_from(_VALUES), max_size=3)),
)
def test_common_via_a_third_stream_is_common_segments(
    parent: list[object], a: tuple[int, list[object]], b: tuple[int, list[object]]
) -> None:
    """Two forks of one parent, each its leading segments and a tail of its own: their
    common segments counted through the parent are those counted between them."""
    first, second = parent[: a[0]] + a[1], parent[: b[0]] + b[1]
    p, x, y = _streams_of([parent, first, second])
    same = common_via(x, y, common_segments(p, x), common_segments(p, y))
    plain = _streams_of([first, second])
    assert same == common_segments(*plain)
    assert locate(x, y, same=same) == locate(*plain)
    assert (x.length, y.length) == (plain[0].length, plain[1].length)


def test_shared_segment_objects_with_names_beyond_ascii_measure_as_plain_ones() -> None:
    segments = tuple(Segment(f"entrées[{i}]", {"é": i}) for i in range(3))
    copies = tuple(Segment(s.name, {"é": i}) for i, s in enumerate(segments))
    shared, plain = PrefixStream(segments), PrefixStream(segments + copies[:1])
    assert common_segments(shared, plain) == 3
    expected = PrefixStream(copies), PrefixStream(copies + copies[:1])
    for a, b in zip((shared, plain), expected, strict=True):
        assert a.length == b.length
        assert [(f.start, f.end) for f in a.frames] == [(f.start, f.end) for f in b.frames]


def _framed(pair: Pair) -> tuple[PrefixStream, PrefixStream]:
    """The pair's streams with every frame built first: nothing kept is ever asked for."""
    streams = _streams(pair)
    for stream in streams:
        assert stream.frames is not None
    return streams


@pytest.mark.parametrize("room", [0, 60, None])
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_streams_that_kept_encodings_compare_measure_and_frame_as_plain_ones(
    pair: Pair, room: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Encodings a stream kept from one comparison (all, some, or none of them, as its
    room allows) serve the next comparison, its length and its frames: the same counts,
    offsets and bytes as streams whose frames were built before anything was kept."""
    if room is not None:
        monkeypatch.setattr(stream_module, "KEPT_BYTES", room)
    parent, fork = _streams(pair)
    other_parent, other_fork = _streams(pair)
    common_segments(parent, fork)
    assert fork.length == _framed(pair)[1].length
    _assert_alike((parent, other_fork), _framed(pair))
    _assert_alike((other_parent, fork), _framed(pair))
    third = _streams(pair)[1]
    third.frame(len(third.segments) - 1)
    _assert_alike((_streams(pair)[0], third), _framed(pair))
