"""Records: written one JSON line per request, thread-safe, and read back with clear errors."""

from __future__ import annotations

import gc
import os
import threading
import weakref
from pathlib import Path

import orjson
import pytest

from harness.capture import Record, RecordError, RecordWriter, Reply, read_record
from harness.capture._record import timestamp
from harness.model import FrozenDict

from .conftest import FullDisk

BODY = b'{"model":"m","messages":[{"role":"user","content":"h\xc3\xa9"}]}'


def draft(body: bytes | None = BODY, **fields: object) -> Record:
    base: dict[str, object] = {
        "seq": 0,
        "time": timestamp(0),
        "dialect": "openai",
        "method": "POST",
        "path": "/v1/chat/completions",
        "query": "",
        "headers": FrozenDict({"authorization": "<redacted>"}),
        "status": 200,
        "body": body,
        "body_size": 0 if body is None else len(body),
    }
    base.update(fields)
    return Record(**base)  # type: ignore[arg-type]


def test_timestamp() -> None:
    assert timestamp(0) == "1970-01-01T00:00:00.000000Z"
    assert timestamp(1.5) == "1970-01-01T00:00:01.500000Z"


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    first = writer.write(
        draft(stream=True, model="m", mark="parent", rule=0, nth=1, reply=Reply("hi"))
    )
    second = writer.write(draft(b"\xff\xfe not utf-8", status=400, error="not JSON"))
    third = writer.write(draft(None, status=413, body_size=10**9, error="too large"))
    writer.close()
    assert [r.seq for r in (first, second, third)] == [1, 2, 3]
    lines = path.read_bytes().splitlines()
    assert [orjson.loads(line)["body_encoding"] for line in lines] == ["utf-8", "base64", None]
    assert list(orjson.loads(lines[0]))[-1] == "body"
    back = read_record(path)
    assert back == [first, second, third]
    assert back[0].json == orjson.loads(BODY)
    assert back[0].body == BODY
    assert back[1].body == b"\xff\xfe not utf-8"
    assert back[1].json is None
    assert back[2].body is None
    assert back[0].parse().request.history[0].text == "hé"


def test_writer_without_a_file_keeps_records_in_memory() -> None:
    writer = RecordWriter()
    writer.write(draft())
    assert len(writer.records) == 1
    writer.close()


def test_concurrent_writes_are_whole_lines_in_seq_order(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    body = b'{"messages": [], "pad": "' + b"x" * 100_000 + b'"}'

    def write() -> None:
        for _ in range(10):
            writer.write(draft(body))

    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.close()
    records = read_record(path)
    assert [r.seq for r in records] == list(range(1, 81))
    assert all(r.body == body for r in records)


def test_each_record_is_written_at_once_beside_the_file_then_put_in_place(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"an earlier record\n")
    writer = RecordWriter(path)
    writer.write(draft())
    assert len(read_record(tmp_path / "r.jsonl.partial")) == 1
    assert path.read_bytes() == b"an earlier record\n"
    writer.close()
    assert len(read_record(path)) == 1
    assert not (tmp_path / "r.jsonl.partial").exists()
    assert len(writer.records) == 1  # still read back, from the writer's own descriptor


def test_records_reads_back_only_what_is_no_longer_held(tmp_path: Path) -> None:
    """Records still held from an earlier call are reused, only new lines are read; the
    writer itself holds none of them, so what it keeps does not grow with the bodies."""
    writer = RecordWriter(tmp_path / "r.jsonl")
    writer.write(draft())
    first = writer.records
    writer.write(draft(BODY + b" "))
    second = writer.records
    assert second[0] is first[0]
    assert [r.seq for r in second] == [1, 2]
    assert second[1].body == BODY + b" "
    assert second == tuple(read_record(tmp_path / "r.jsonl.partial"))
    kept = weakref.ref(second[1])
    del first, second
    gc.collect()
    assert kept() is None
    writer.write(draft())
    assert writer.records == tuple(read_record(writer.file or ""))
    assert [r.json is not None for r in writer.records] == [True, True, True]
    writer.close()


def test_records_names_the_line_of_a_record_spoiled_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    writer.write(draft())
    writer.write(draft())
    held = writer.records[0]
    written = writer.file or path
    with written.open("r+b") as file:  # spoil the second line, keeping its length
        file.seek(len(written.read_bytes().splitlines()[0]) + 1)
        file.write(b"[")
    with pytest.raises(RecordError, match=r"r\.jsonl: line 2: not valid JSON"):
        writer.records  # noqa: B018
    assert held.seq == 1
    writer.close()


def test_a_write_after_close_is_refused_not_kept(tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path / "r.jsonl")
    assert writer.write(draft()).seq == 1
    writer.close()
    with pytest.raises(RecordError, match="is closed"):
        writer.write(draft())
    assert writer.count == 1
    assert [r.seq for r in writer.records] == [1]


def test_a_failed_write_is_cut_back_to_the_last_whole_line(
    tmp_path: Path, full_disk: FullDisk
) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    writer.write(draft())
    whole = (writer.file or path).read_bytes()
    full_disk(40)  # the second line gets 40 bytes on disk, then ENOSPC
    with pytest.raises(RecordError, match=r"No space left on device\); 1 request was recorded"):
        writer.write(draft())
    assert (writer.file or path).read_bytes() == whole
    with pytest.raises(RecordError, match="No space left"):
        writer.write(draft())  # given up: not tried again
    writer.close()
    assert path.read_bytes() == whole  # what was whole is put in place
    assert [r.seq for r in read_record(path)] == [1]


def test_a_second_writer_on_one_file_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    writer.write(draft())
    with pytest.raises(RecordError) as refused:
        RecordWriter(path)
    assert str(refused.value) == (
        f"the record file {path} is being written by another run (pid {os.getpid()}), as"
        f" {path}.partial: give each run its own --record"
    )
    writer.close()
    assert [r.seq for r in read_record(path)] == [1]  # the first writer's, untouched
    RecordWriter(path).close()  # free again once the first has put its file in place
    assert read_record(path) == []


def test_a_partial_file_left_by_a_killed_run_is_taken_over(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl.partial").write_bytes(b'{"v":1,"seq":1,"ti')  # killed mid-line
    writer = RecordWriter(tmp_path / "r.jsonl")
    writer.write(draft())
    writer.close()
    assert [r.seq for r in read_record(tmp_path / "r.jsonl")] == [1]


def test_a_discarded_writer_leaves_an_earlier_record_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"earlier\n")
    RecordWriter(path).discard()
    assert path.read_bytes() == b"earlier\n"
    assert not (tmp_path / "r.jsonl.partial").exists()


@pytest.mark.parametrize(
    ("where", "problem"), [("/dev/null", "is not a regular file"), (".", "is a directory")]
)
def test_a_record_is_a_regular_file(tmp_path: Path, where: str, problem: str) -> None:
    path = tmp_path if where == "." else Path(where)
    with pytest.raises(RecordError, match=problem):
        RecordWriter(path)
    assert not Path(f"{where}.partial").exists()


def test_a_symlinked_record_replaces_its_target_not_the_link(tmp_path: Path) -> None:
    (tmp_path / "real.jsonl").write_bytes(b"earlier\n")
    (tmp_path / "link.jsonl").symlink_to("real.jsonl")
    writer = RecordWriter(tmp_path / "link.jsonl")
    with pytest.raises(RecordError, match="being written by another run"):
        RecordWriter(tmp_path / "real.jsonl")  # one file, however it is named
    writer.write(draft())
    writer.close()
    assert (tmp_path / "link.jsonl").is_symlink()
    assert [r.seq for r in read_record(tmp_path / "real.jsonl")] == [1]


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    line = orjson.dumps(draft(seq=1).to_json())
    path.write_bytes(b"\n" + line + b"\n\n")
    assert len(read_record(path)) == 1


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda o: b"{not json", "line 2: not valid JSON"),
        (lambda o: b"[1]", "line 2: a record is a JSON object"),
        (lambda o: orjson.dumps({**o, "v": 9}), "line 2: unknown record version 9"),
        (
            lambda o: orjson.dumps({k: v for k, v in o.items() if k != "seq"}),
            "'seq' field is missing",
        ),
        (lambda o: orjson.dumps({**o, "status": "200"}), "'status' must be int, not str"),
        (lambda o: orjson.dumps({**o, "body_encoding": "gzip"}), 'body_encoding is "utf-8"'),
        (
            lambda o: orjson.dumps({**o, "body_encoding": "base64", "body": "!!"}),
            "not valid base64",
        ),
        (lambda o: orjson.dumps({**o, "reply": {"call": 1}}), "line 2: a reply has"),
        (lambda o: orjson.dumps({**o, "headers": {"a": 1}}), "header values are strings"),
    ],
)
def test_malformed_line_names_the_line(tmp_path: Path, mutate: object, problem: str) -> None:
    good = draft(seq=1).to_json()
    path = tmp_path / "r.jsonl"
    path.write_bytes(orjson.dumps(good) + b"\n" + mutate(good) + b"\n")  # type: ignore[operator]
    with pytest.raises(RecordError) as raised:
        read_record(path)
    assert str(raised.value).startswith(f"{path}: line 2: ")
    assert problem in str(raised.value)


def test_missing_record_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"nope\.jsonl: cannot be read"):
        read_record(tmp_path / "nope.jsonl")
