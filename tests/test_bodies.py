"""Reading bodies: every bad input ends in one sentence naming the source."""

import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from harness._bodies import (
    BodyError,
    _wide,
    choose_dialect,
    decode_body,
    decode_pair,
    read_body,
)
from harness.model._json import dumps
from tests.prefix.pairs import IDS, PAIRS, Pair

TEXT = st.text(alphabet=st.sampled_from('a:é\\"\n'), max_size=6)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


def write(tmp_path: Path, data: bytes, name: str = "body.json") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_reads_a_file_and_stdin(tmp_path: Path) -> None:
    assert read_body(write(tmp_path, b'{"a":1}')) == b'{"a":1}'
    assert read_body("-", stdin=io.BytesIO(b'{"b":2}')) == b'{"b":2}'


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BodyError, match=r"nope\.json: no such file"):
        read_body(str(tmp_path / "nope.json"))


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(BodyError, match="is a directory"):
        read_body(str(tmp_path))


def test_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = write(tmp_path, b" " * 2048)
    with pytest.raises(
        BodyError, match=r"is 2,048 bytes, over the 1,024 bytes limit.*--max-body-size"
    ):
        read_body(path, max_bytes=1024)


def test_oversized_stdin_is_refused() -> None:
    with pytest.raises(BodyError, match=r"<stdin>: is over the 10 bytes limit"):
        read_body("-", max_bytes=10, stdin=io.BytesIO(b"x" * 100))


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "is empty, not a JSON request body"),
        (b"  \n", "is empty, not a JSON request body"),
        (b'{"messages": [', "ends in the middle of the JSON at byte 14: the file looks truncated"),
        (b'{"a": "\xff\xfe"}', "is not valid UTF-8 text, so it is not a JSON request body"),
        (b"[" * 10_000, "is nested more than 1,024 levels deep"),
        (b'{"a": 1} trailing', "is not valid JSON: unexpected content after document at line 1"),
    ],
)
def test_decode_errors_are_one_sentence(data: bytes, problem: str) -> None:
    with pytest.raises(BodyError) as caught:
        decode_body(data, source="f.json")
    assert str(caught.value).startswith(f"f.json: {problem}")
    assert "\n" not in str(caught.value)


def test_unknown_dialect_name() -> None:
    with pytest.raises(BodyError, match=r"--dialect: unknown dialect 'cobol'; known: "):
        choose_dialect({"a": {}}, name="cobol")


def test_body_of_no_dialect() -> None:
    with pytest.raises(BodyError, match="does not look like a request of any known dialect"):
        choose_dialect({"p.json": {"hello": 1}, "f.json": [1, 2]})


def test_a_byte_order_mark_is_skipped() -> None:
    assert decode_body(b'\xef\xbb\xbf{"a": 1}', source="f.json") == {"a": 1}
    with pytest.raises(BodyError, match="is empty"):
        decode_body(b"\xef\xbb\xbf  ", source="f.json")


@pytest.mark.parametrize("n", [2**64, 2**64 + 1, -(2**63) - 1, 10**40, -(10**300)])
def test_integers_beyond_64_bits_are_read_exactly(n: int) -> None:
    decoded = decode_body(
        f'{{"a": [{n}, 1.5, "x"], "b": 18446744073709551615}}'.encode(), source="f"
    )
    assert decoded == {"a": [n, 1.5, "x"], "b": 2**64 - 1}
    assert type(decoded["a"][0]) is int


MEMBER = st.tuples(st.sampled_from(["a", "b"]), JSON)


@given(st.lists(MEMBER, max_size=4), st.sampled_from([b",", b", "]), st.booleans())
@example([("a", [1]), ("a", [1])], b",", False)
@example([("a", {"b": 1})], b",", True)
def test_a_key_held_twice_is_said_exactly_when_there_is_one(
    members: list[tuple[str, Any]], comma: bytes, twice_inside: bool
) -> None:
    """The cheap check (colons of the body against those of its compact encoding) misses
    none and invents none, whatever the keys and strings hold."""
    inner = [b'"%s":%s' % (k.encode(), orjson.dumps(v)) for k, v in members]
    if twice_inside and members:
        key, value = members[0]
        inner[0] = b'"%s":{"k":0,"k":%s}' % (key.encode(), orjson.dumps(value))
    data = b"{" + comma.join(inner) + b"}"
    twice = len({k for k, _ in members}) < len(members) or (twice_inside and bool(members))
    warnings: list[str] = []
    assert decode_body(data, source="f", warnings=warnings) == orjson.loads(data)
    assert len(warnings) == int(twice)


@pytest.mark.parametrize(
    ("value", "wide"),
    [
        ({"a": [1.5, -1e18, 2**64 - 1, -(2**63)]}, False),
        ({"a": [{"b": 1e19}]}, True),
        ([-9.3e18], True),
        ("1e300", False),
        ({"t": ["1-2e+99", "e+5", "7e+"]}, False),  # text, not numbers
        ({"m": [{"n": i} for i in range(200)] + [{"n": 2e19}]}, True),  # after many numbers
    ],
)
def test_a_float_as_large_as_an_unheld_integer_is_found_in_the_encoding(
    value: Any, *, wide: bool
) -> None:
    assert _wide([orjson.dumps(value)]) is wide


def test_a_large_float_stays_a_float() -> None:
    decoded = decode_body(b'{"a": 1e19, "b": 12345678901234567890.0}', source="f")
    assert decoded == {"a": 1e19, "b": 12345678901234567890.0}
    assert type(decoded["b"]) is float


def test_a_number_too_long_to_read_is_one_sentence() -> None:
    with pytest.raises(BodyError, match=r"^f\.json: is not valid JSON: number is infinity"):
        decode_body(b'{"a": ' + b"9" * 5_000 + b"}", source="f.json")


@pytest.mark.parametrize(
    ("data", "keys"),
    [
        (b'{"model": "a", "model": "b"}', '"model"'),
        (b'{"m": [{"role": "user", "content": "x", "role": "user"}]}', '"role"'),
        (b'{"a": {"k": 1, "k": 2}, "b": 1, "b": 2, "c": 1, "c": 2, "d": 0, "d": 0}', "and 1 more"),
        (b'{"a": "\\u003a", "a": 1}', '"a"'),  # an escaped colon defeats the cheap check
        (b'{"a":1,"a":1}', '"a"'),  # compact bodies, which one comparison reads
        (b'{"m":[{"r":"u","c":"x","r":"u"}]}', '"r"'),
        (b'{"a":1,"b":2,"a":1}', '"a"'),
    ],
)
def test_duplicate_keys_are_said_last_one_wins(data: bytes, keys: str) -> None:
    warnings: list[str] = []
    decoded = decode_body(data, source="f.json", warnings=warnings)
    assert decoded == orjson.loads(data)  # the last value of each key, as before
    assert len(warnings) == 1
    assert warnings[0].startswith("f.json: an object holds the same key twice (")
    assert keys in warnings[0]


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": "x:y", "b": {"c": ":"}}',
        b'{"a": "\\u003a", "b": "\\\\u003a"}',
        b'{"a": [' + b"[" * 300 + b"]" * 300 + b"]}",
        b'{"a": 123456789012345678901234567890, "b": "19 digits: 1234567890123456789"}',
        b'{"a":[{"b":":"},"x:y"],"c":1.5}\n',
    ],
)
def test_no_duplicate_keys_no_warning(data: bytes) -> None:
    warnings: list[str] = []
    decode_body(data, source="f.json", warnings=warnings)
    assert warnings == []


# --- a parent and its fork, read for diff (decode_pair) ----------------------------------------


def _exactly(value: Any) -> bytes:
    """A value's compact JSON, integers exact and their types kept (1 is not 1.0)."""
    return dumps(value)


def _alone(parent: bytes, fork: bytes, sources: tuple[str, str]) -> tuple[Any, Any, list[str]]:
    """The two bodies decoded one at a time, and the warnings said."""
    warnings: list[str] = []
    first = decode_body(parent, source=sources[0], warnings=warnings)
    return first, decode_body(fork, source=sources[1], warnings=warnings), warnings


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_a_pair_reads_as_two_bodies_read_alone(tmp_path: Path, pair: Pair) -> None:
    """``decode_pair`` gives the values and warnings of ``decode_body`` of each, in order; a
    fork that repeats a compact parent's bytes holds the parent's very items there, and
    ``known`` the encodings of every item of both (those a stream would make)."""
    parent, fork = write(tmp_path, pair.parent, "p"), write(tmp_path, pair.fork, "f")
    parent_value, fork_value, said = _alone(pair.parent, pair.fork, (parent, fork))
    warnings: list[str] = []
    read = decode_pair(parent, fork, warnings=warnings)
    assert _exactly(read.parent) == _exactly(parent_value)
    assert _exactly(read.fork) == _exactly(fork_value)
    assert warnings == said
    for body in (read.parent, read.fork):
        for item in body["messages"]:
            assert read.known.get(item) in (None, dumps(item))
    shared = zip(read.parent["messages"], read.fork["messages"], strict=False)
    taken = sum(a is b for a, b in shared)
    if pair.name in ("appended", "bom", "trailing-newline"):
        assert taken == len(read.parent["messages"]) - 1  # the last: its bracket differs
        assert all(read.known.get(m) is not None for m in read.fork["messages"])


def test_a_pair_is_read_in_order_and_errors_name_their_file(tmp_path: Path) -> None:
    """The parent is read and decoded before the fork is read: its error comes first."""
    good = write(tmp_path, PAIRS[0].parent, "good")
    bad = write(tmp_path, b'{"a": [}', "bad")
    gone = str(tmp_path / "gone")
    for parent, fork, wrong in ((bad, gone, bad), (good, gone, gone), (good, bad, bad)):
        with pytest.raises(BodyError) as raised:
            decode_pair(parent, fork)
        assert raised.value.source == wrong


EDITS = st.sampled_from(
    [b"", b" ", b",", b'"', b"1", b"]", b"}", b'"a":1,', b'{"a":1}', b'"a":', b"\\/", b"[1,2]"]
)


@given(
    st.dictionaries(st.sampled_from(["m", "t", "a"]), JSON, max_size=3),
    st.lists(JSON, max_size=4),
    st.integers(0, 400),
    st.integers(0, 3),
    EDITS,
)
@example({"m": [{"a": 1}, {"a": 2}]}, [{"a": 3}], 20, 0, b"")
@example({"m": [1, 2, 3]}, [], 10, 1, b"")  # a number the edit makes longer
@example({"m": [{"a": 1}, {"b": 2}]}, [], 15, 0, b'"a":')  # a duplicate inside an item
@example({"m": [1, 2], "a": 0}, [], 13, 0, b',"m":[]')  # the array's key again, later
def test_a_pair_from_any_edit_of_the_parents_bytes_reads_as_two_bodies(
    tmp_path_factory: pytest.TempPathFactory,
    value: dict[str, Any],
    tail: list[Any],
    at: int,
    cut: int,
    edit: bytes,
) -> None:
    """The fork: the parent's bytes with items appended to its arrays, then a few bytes cut
    at some offset and others put there. Whatever that gives, when it is JSON at all, it
    reads as ``decode_body`` reads it alone, warnings included."""
    data = orjson.dumps(value)
    longer = {k: v + tail if isinstance(v, list) else v for k, v in value.items()}
    fork = orjson.dumps(longer)
    at = min(at, len(fork))
    fork = fork[:at] + edit + fork[at + cut :]
    try:
        orjson.loads(fork)
    except orjson.JSONDecodeError:
        return
    folder = tmp_path_factory.mktemp("pair")
    parent_path, fork_path = write(folder, data, "p"), write(folder, fork, "f")
    parent_value, fork_value, said = _alone(data, fork, (parent_path, fork_path))
    warnings: list[str] = []
    read = decode_pair(parent_path, fork_path, warnings=warnings)
    assert (_exactly(read.parent), _exactly(read.fork)) == (
        _exactly(parent_value),
        _exactly(fork_value),
    )
    assert warnings == said
