"""Reading logs for an offline check (harness/capture/_log.py): capture records, the minimal
external format, and one clear sentence with the file and line for bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.capture import LogError, read_log
from harness.dialects import get_dialect
from harness.model import Request

from .simulate import ASK, PRESET, Runtime, call, calls, text

OPENAI = orjson.loads(get_dialect("openai").render(Request(PRESET, (ASK,))))
ANTHROPIC = orjson.loads(get_dialect("anthropic").render(Request(PRESET, (ASK,))))
GEMINI = orjson.loads(get_dialect("gemini").render(Request(PRESET, (ASK,))))


def write(tmp_path: Path, *lines: Any) -> Path:
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "log.jsonl"
    path.write_bytes(
        b"\n".join(line if isinstance(line, bytes) else orjson.dumps(line) for line in lines)
    )
    return path


def test_capture_records_are_read_with_their_replies(tmp_path: Path) -> None:
    rt = Runtime()
    rt.send([ASK], calls(call("fork", directive="A")), mark="parent")
    rt.send([ASK], text("no"), status=400)
    path = write(tmp_path, *(r.to_json() for r in rt.records), b"")
    used, ignored = read_log(path)
    assert [(u.seq, u.mark, u.nth) for u in used] == [(1, "parent", 1)]
    assert used[0].reply == rt.records[0].reply
    assert [(i.seq, i.reason) for i in ignored] == [
        (2, "refused with status 400 (POST /v1/chat/completions)")
    ]


def test_minimal_lines_in_every_form(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"body": OPENAI},
        {"body": orjson.dumps(ANTHROPIC).decode(), "mark": "parent"},
        {"body": GEMINI, "path": "/v1beta/models/g:generateContent", "note": "extra keys pass"},
        {"body": OPENAI, "dialect": "openai", "path": None},
        {"body": ANTHROPIC, "path": "/v1/messages/count_tokens"},
    )
    used, ignored = read_log(path)
    assert [(u.seq, u.dialect, u.mark, u.reply) for u in used] == [
        (1, "openai", None, None),
        (2, "anthropic", "parent", None),
        (3, "gemini", None, None),
        (4, "openai", None, None),
    ]
    assert used[1].body == orjson.dumps(ANTHROPIC)
    assert all(u.history == (ASK,) for u in used)
    assert ignored == ()


def test_the_dialect_option_names_lines_without_one(tmp_path: Path) -> None:
    path = write(tmp_path, {"body": OPENAI}, {"body": ANTHROPIC, "dialect": "anthropic"})
    used, _ = read_log(path, dialect="openai")
    assert [u.dialect for u in used] == ["openai", "anthropic"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([b"{not json"], "line 1: not valid JSON"),
        ([{"body": OPENAI}, b"[1, 2]"], "line 2: a log line is a JSON object, not an array"),
        ([{"path": "/v1/messages"}], 'line 1: the line has no "body"'),
        ([{"body": "{oops"}], 'line 1: the "body" text is not valid JSON'),
        ([{"body": [1]}], 'line 1: the "body" is an array, not a JSON object'),
        ([{"body": OPENAI, "mark": 3}], 'line 1: "mark" must be a string, not a number'),
        ([{"body": OPENAI, "dialect": "cohere"}], "line 1: unknown dialect 'cohere'"),
        ([{"body": {"hello": 1}}], "line 1: cannot tell the body's wire format"),
        ([{"v": 1, "seq": "x"}], "line 1: not a capture record: "),
        ([{"v": 9}], "line 1: not a capture record: unknown record version 9"),
        ([{"body": OPENAI, "usage": 12}], 'line 1: "usage" must be an object, not a number'),
        ([{"body": OPENAI, "response": "ok"}], 'line 1: "response" must be an object, not a'),
        (
            [{"body": OPENAI, "response": {"usage": {}}, "usage": {}}],
            'line 1: the line has both "response" and "usage"',
        ),
    ],
)
def test_bad_lines_name_the_file_and_line(tmp_path: Path, lines: list[Any], message: str) -> None:
    path = write(tmp_path, *lines)
    with pytest.raises(LogError) as raised:
        read_log(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_body_the_dialect_cannot_read_is_left_out_with_the_reason(tmp_path: Path) -> None:
    path = write(tmp_path, {"body": {"messages": "x"}, "dialect": "openai"}, {"body": OPENAI})
    used, ignored = read_log(path)
    assert [u.seq for u in used] == [2]
    assert [(i.seq, i.kind) for i in ignored] == [(1, "unreadable")]
    assert "the openai dialect cannot read the body" in ignored[0].reason


def test_empty_and_missing_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(LogError, match="the file is empty"):
        read_log(empty)
    with pytest.raises(LogError, match=r"missing\.jsonl: cannot be read"):
        read_log(tmp_path / "missing.jsonl")


def test_a_responses_path_names_the_openai_responses_dialect(tmp_path: Path) -> None:
    body = {"model": "m", "instructions": "Be brief.", "input": "hi"}
    path = write(
        tmp_path,
        {"body": body, "path": "/v1/responses"},
        {"body": body, "path": "/v1/responses/input_tokens"},
        {"body": OPENAI, "path": "/v1/chat/completions"},
    )
    used, ignored = read_log(path)
    assert [(u.seq, u.dialect) for u in used] == [(1, "openai-responses"), (3, "openai")]
    assert used[0].request.preset.system == ("Be brief.",)
    assert ignored == ()


# --- input errors: a line refused with its number, or a body left out with the reason -------

RECORD = {
    "v": 1,
    "seq": 1,
    "time": "2026-01-31T12:00:00.000000Z",
    "dialect": "openai",
    "method": "POST",
    "path": "/v1/chat/completions",
    "query": "",
    "status": 200,
    "mark": "parent",
    "rule": 1,
    "nth": 1,
    "reply": {"text": "ok"},
    "headers": {},
    "body_size": 0,
    "body_encoding": "utf-8",
    "body": orjson.dumps(OPENAI).decode(),
}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ({**RECORD, "dialect": "cohere"}, "no cohere dialect is installed to read the body"),
        (
            {"body": {**OPENAI, "messages": [{"role": ["user"], "content": "hi"}]}},
            'the openai dialect cannot read the body (messages[0].role: role is ["user"]',
        ),
        (
            {**RECORD, "body": '{"messages": [{"role": "user", "content": ' + nested(2000) + "}]}"},
            "the body is not JSON (nested deeper than 1024 levels)",
        ),
        (
            {"body": '{"messages": ' + nested(2000) + "}", "dialect": "openai"},
            "the body is not JSON (nested deeper than 1024 levels)",
        ),
        ({**RECORD, "body": "[1]"}, "the body is an array, not a JSON object"),
        ({**RECORD, "body": "{oops"}, "the body is not JSON (unexpected character"),
    ],
)
def test_bodies_that_cannot_be_read_are_left_out_with_the_reason(
    tmp_path: Path, line: Any, reason: str
) -> None:
    used, ignored = read_log(write(tmp_path, line, {"body": OPENAI}))
    assert [u.seq for u in used] == [2]
    assert [(i.seq, i.kind) for i in ignored] == [(1, "unreadable")]
    assert reason in ignored[0].reason, ignored[0].reason


def test_a_body_object_too_deep_to_reencode_is_left_out(tmp_path: Path) -> None:
    line = b'{"dialect": "openai", "body": {"messages": ' + nested(600).encode() + b"}}"
    used, ignored = read_log(write(tmp_path, line))
    assert used == ()
    assert "the body is nested too deeply to read" in ignored[0].reason


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([b"hello"], "line 1: not valid JSON (unexpected character"),
        (
            [{"body": OPENAI}, b'{"dialect": "openai", "body": ' + nested(2000).encode() + b"}"],
            "line 2: nested deeper than JSON lines are read (1024 levels)",
        ),
        ([{"v": 1, "seq": 1}], "line 1: not a capture record: the "),
        ([{**RECORD, "mark": ["parent"]}], "line 1: not a capture record: 'mark' must be str"),
        ([{**RECORD, "reply": {"call": "x"}}], "line 1: not a capture record: a reply has"),
        ([{"body": OPENAI}, b"\xef\xbb\xbf" + orjson.dumps({"body": OPENAI})], "line 2: a byte"),
        (["x".encode("utf-16")], "the file is UTF-16"),
        ([b'{"body": "\xff"}'], "line 1: not valid JSON (str is not valid UTF-8"),
        ([{"body": OPENAI, "dialect": ["openai"]}], 'line 1: "dialect" must be a string'),
        (
            [b'{"body": {"input": 3, "contents": {"type": []}}}'],
            "line 1: cannot tell the body's wire format",
        ),
        (
            [
                b'{"v": 1, "seq": 1, "time": "", "dialect": "openai", "method": "POST",'
                b' "path": "/", "query": "", "status": 200, "headers": {}, "body_size": 0,'
                b' "reply": {"call":'
                b' [{"name": "fork", "args": {"d": ' + nested(300).encode() + b"}}]}}"
            ],
            "line 1: not a capture record: the reply is nested deeper than it can be sent",
        ),
    ],
)
def test_lines_that_cannot_be_read_are_refused_with_the_line(
    tmp_path: Path, lines: list[Any], message: str
) -> None:
    path = write(tmp_path, *lines)
    with pytest.raises(LogError) as raised:
        read_log(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_byte_order_mark_at_the_start_of_the_file_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps(RECORD) + b"\r\n" + orjson.dumps(RECORD))
    used, ignored = read_log(path)
    assert [u.seq for u in used] == [1, 1]
    assert ignored == ()


def test_the_log_is_read_a_line_at_a_time(tmp_path: Path) -> None:
    """Lines that are not kept cost nothing once read: ten times as many of them leave the
    peak where it was (bench/check_log_memory.py measures a large log)."""
    import tracemalloc

    filler = {"body": {**OPENAI, "metadata": {"pad": "x" * 100_000}}}
    skipped = {"body": OPENAI, "path": "/v1/messages/count_tokens"}
    peaks, sizes = [], []
    for n in (300, 3000):
        path = write(tmp_path / str(n), filler, *([skipped] * n), filler)
        read_log(path)  # the imports and caches of a first read
        tracemalloc.start()
        try:
            read_log(path)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        sizes.append(path.stat().st_size)
    assert peaks[1] - peaks[0] < (sizes[1] - sizes[0]) / 10


def test_bodies_and_requests_are_read_back_from_the_file(tmp_path: Path) -> None:
    rt = Runtime()
    rt.send([ASK], calls(call("fork", directive="A")), mark="parent")
    lines: list[Any] = [
        {"body": OPENAI},
        {"body": orjson.dumps(ANTHROPIC).decode(), "mark": "parent"},
        rt.records[0].to_json(),
        {"body": GEMINI, "dialect": "gemini"},
    ]
    path = write(tmp_path, *lines)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # the offsets count the mark
    used, _ = read_log(path)
    raws = [
        orjson.dumps(OPENAI),
        orjson.dumps(ANTHROPIC),
        rt.records[0].body,
        orjson.dumps(GEMINI),
    ]
    for u, raw in reversed(list(zip(used, raws, strict=True))):  # the last read are kept
        assert u.body == raw
        assert u.request == get_dialect(u.dialect).parse(orjson.loads(raw)).request
        assert u.size == len(u.history)


def test_a_file_that_changes_while_it_is_checked_is_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path, *([{"body": OPENAI}] * 5))
    used, _ = read_log(path)
    path.write_bytes(b"{}\n" * 100)
    with pytest.raises(LogError, match=r"log\.jsonl: the file changed while it was checked"):
        [u.request for u in used]
    path.write_bytes(b"")
    with pytest.raises(LogError, match="the file changed while it was checked"):
        [u.body for u in used]


def test_standard_input_is_copied_to_a_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    data = write(tmp_path, {"body": OPENAI}, {"body": ANTHROPIC}).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    used, _ = read_log("-")
    assert [u.dialect for u in reversed(used)] == ["anthropic", "openai"]
    assert [u.body for u in used] == [orjson.dumps(OPENAI), orjson.dumps(ANTHROPIC)]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{]\n")))
    with pytest.raises(LogError, match=r"^standard input: line 1: not valid JSON"):
        read_log("-")
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(LogError, match="standard input cannot be read: it is closed"):
        read_log("-")


def test_a_named_pipe_is_copied_to_a_temporary_file_as_standard_input_is(tmp_path: Path) -> None:
    import os
    import threading

    data = write(tmp_path, {"body": OPENAI}, {"body": ANTHROPIC}).read_bytes()
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    used, _ = read_log(fifo)
    writer.join()
    assert [u.dialect for u in used] == ["openai", "anthropic"]
    assert [u.body for u in used] == [orjson.dumps(OPENAI), orjson.dumps(ANTHROPIC)]  # read back
    assert [u.request.history[0].role for u in used] == ["user", "user"]
    writer = threading.Thread(target=fifo.write_bytes, args=(data.rstrip(b"\n") + b"\n{]\n",))
    writer.start()
    with pytest.raises(LogError, match=rf"^{fifo}: line 3: not valid JSON"):
        read_log(fifo)  # named as given, with its line
    writer.join()


def test_a_lines_reported_usage_is_read_through_its_dialect(tmp_path: Path) -> None:
    """``response`` (the provider's whole answer) and bare ``usage`` are both read in the
    dialect's own names; a value that is no token count is kept as the reason it is not
    compared, and the request is checked all the same."""
    usage = {"input_tokens": 4, "cache_read_input_tokens": 1200, "cache_creation_input_tokens": 0}
    path = write(
        tmp_path,
        {"body": ANTHROPIC, "response": {"type": "message", "usage": usage}},
        {"body": ANTHROPIC, "usage": usage},
        {"body": ANTHROPIC, "usage": {**usage, "cache_read_input_tokens": "1200"}},
        {"body": ANTHROPIC, "response": {"type": "error"}},
        {"body": ANTHROPIC},
    )
    used, _ = read_log(path)
    reported = [u.reported for u in used]
    assert [getattr(r, "read", None) for r in reported[:2]] == [1200, 1200]
    assert reported[0] == reported[1]
    assert reported[2] == ("\"cache_read_input_tokens\" is a string ('1200'), not a token count")
    assert reported[3:] == [None, None]
