import orjson
import pytest

from harness._bodies import Encodings
from harness.dialects import Segment, get_dialect
from harness.prefix import PrefixStream, StreamError, common_segments, locate, prefix_stream

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
    assert fresh.length == stream.length
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


def test_streams_compare_frame_by_frame_up_to_the_first_difference() -> None:
    parent, fork = stream_of("a", "b", "c"), stream_of("a", "x", "c", "d")
    assert common_segments(parent, fork) == 1
    assert not fork.starts_with(parent)
    d = locate(parent, fork)
    assert d is not None
    assert (d.parent_frame, d.fork_frame) == (parent.frames[1], fork.frames[1])
    assert d.offset == len(b'messages[0]="a"\nmessages[1]="')
    assert [f.start for f in fork.frames] == [0, 16, 32, 48]
    assert fork.length == len(bytes(fork)) == fork.frames[-1].end


def test_a_segment_that_cannot_be_encoded_is_one_stream_error() -> None:
    with pytest.raises(StreamError, match=r"^messages\[2\] cannot be re-encoded as JSON"):
        stream_of("a", "b", {"x": object()})


def test_names_count_as_well_as_encodings() -> None:
    a = PrefixStream((Segment("tools[0]", "x"),))
    b = PrefixStream((Segment("messages[0]", "x"),))
    assert not a.starts_with(b)
    assert common_segments(a, b) == 0


def test_a_fork_that_ends_early_diverges_where_it_ends() -> None:
    parent, fork = stream_of("a", "b", "c"), stream_of("a")
    d = locate(parent, fork)
    assert d is not None
    assert d.fork_frame is None
    assert d.parent_frame is parent.frames[1]
    assert (d.offset, d.path) == (fork.length, "messages[1]")
    assert d.parent_frame.start == fork.length


@pytest.mark.parametrize("tail", [("b",), ("c",), ("b", "d")])
def test_a_segment_orjson_refuses_midway_is_compared_and_measured_all_the_same(
    tail: tuple[object, ...],
) -> None:
    """An integer beyond 64 bits between segments orjson encodes."""
    parent, fork = stream_of("a", 2**70, "b"), stream_of("a", 2**70, *tail)
    same = 3 if tail[0] == "b" else 2
    assert common_segments(parent, fork) == same
    assert fork.starts_with(parent) is (same == 3)
    assert (parent.length, fork.length) == (len(bytes(parent)), len(bytes(fork)))


def test_segments_whose_encodings_are_known_are_framed_with_them() -> None:
    """A segment whose very value ``known`` holds takes its encoding from there (so a
    value equal to it but another object is encoded), and the stream is the one that
    encoding every segment makes."""
    first, second = {"role": "user", "content": "a"}, {"role": "user", "content": "b"}
    known = Encodings()
    known.add(first, orjson.dumps(first))
    held = known.get(first)
    assert held is not None
    assert known.get(dict(first)) is None
    segments = (Segment("messages[0]", first), Segment("messages[1]", second))
    stream = PrefixStream(segments, known)
    assert stream.frames[0].json is held
    assert bytes(stream) == bytes(PrefixStream(segments))
    assert stream.length == PrefixStream(segments).length
