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
