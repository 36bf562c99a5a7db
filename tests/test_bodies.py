"""Reading bodies: every bad input ends in one sentence naming the source."""

import io
from pathlib import Path

import pytest

from harness._bodies import BodyError, choose_dialect, decode_body, read_body


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
