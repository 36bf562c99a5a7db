"""``prefix-harness check-log`` on mutated logs: capture records of a fork in every dialect
(and the same requests in the minimal format) with a record's fields, a body or a line's
bytes mutated. Whatever the log, check-log exits with a code of the table (0 to 4), a bad
line named in one sentence, never a traceback."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from harness.dialects import all_dialects
from tests.capture.simulate import ASK, Runtime, call, calls, child_history, results, text

from ._fuzz import (
    Deep,
    assert_clean,
    dumps,
    fuzz_settings,
    mutated_bytes,
    mutated_value,
    run_cli,
)

DIALECTS = list(all_dialects())
ALLOWED = {0, 1, 2, 3, 4}


def _log(dialect: str) -> list[dict[str, Any]]:
    """The records of a parent that forks one child, which answers, and the parent's next
    request."""
    rt = Runtime(dialect)
    turn = rt.send([ASK], calls(call("fork", directive="A: list the files")), mark="parent")
    rt.send(child_history([ASK], turn, "A: list the files"), text("done"), mark="fork-A")
    rt.send((ASK, turn, results(turn, "started")), text("ok"), mark="parent")
    return [r.to_json() for r in rt.records]


LOGS = {d: _log(d) for d in DIALECTS}

# Found by this target, fixed in harness/capture/_log.py:
# a record whose reply's call arguments nest 300 deep (the rules could not re-encode them);
DEEP_REPLY = [
    dumps(
        {
            **LOGS["anthropic"][0],
            "reply": {"call": [{"name": "fork", "args": {"d": Deep([], 300)}}]},
        }
    ),
    *(orjson.dumps(r) for r in LOGS["anthropic"][1:]),
]
# a minimal line whose openai-responses content part has an array "type" (detection raised).
ODD_TYPE = [
    b'{"body": {"model": "m", "input": [{"type": "message", "role": "user",'
    b' "content": [{"type": [], "text": "x"}]}]}}'
]


def check_log(lines: list[bytes], *options: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        assert_clean(run_cli(["check-log", str(path), *options]), ALLOWED)


def _with_body(record: dict[str, Any], body: bytes) -> dict[str, Any]:
    try:
        return {**record, "body_encoding": "utf-8", "body": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {**record, "body_encoding": "base64", "body": base64.b64encode(body).decode()}


@st.composite
def logs(draw: st.DrawFn) -> tuple[list[bytes], list[str]]:
    dialect = draw(st.sampled_from(DIALECTS))
    records = LOGS[dialect]
    minimal = draw(st.booleans())
    objects: list[Any] = (
        [{"body": orjson.loads(r["body"]), "path": r["path"], "mark": r["mark"]} for r in records]
        if minimal
        else list(records)
    )
    at = draw(st.integers(0, len(objects) - 1))
    target = draw(st.sampled_from(["line", "body", "bytes"]))
    lines = [orjson.dumps(o) for o in objects]
    if target == "line":
        lines[at] = dumps(draw(mutated_value(objects[at])))
    elif target == "body" and minimal:
        lines[at] = b'{"body":' + dumps(draw(mutated_value(objects[at]["body"]))) + b"}"
    elif target == "body":
        body = dumps(draw(mutated_value(orjson.loads(objects[at]["body"]))))
        lines[at] = orjson.dumps(_with_body(objects[at], body))
    else:
        lines[at] = draw(mutated_bytes(lines[at]))
    options = draw(st.sampled_from([[], ["--json"], ["--dialect", dialect]]))
    return lines, options


def test_the_seeds_pass(tmp_path: Path) -> None:
    for records in LOGS.values():
        path = tmp_path / "log.jsonl"
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
        ran = run_cli(["check-log", str(path)])
        assert ran.code == 0, ran.out


@fuzz_settings(150)
@given(logs())
@example((DEEP_REPLY, []))
@example((ODD_TYPE, []))
def test_mutated_logs_exit_with_a_code_of_the_table_without_a_traceback(
    case: tuple[list[bytes], list[str]],
) -> None:
    lines, options = case
    check_log(lines, *options)


def test_as_a_process_of_its_own(tmp_path: Path) -> None:
    """The pinned inputs once more through ``python -m harness``: a reply too deep to have
    been sent is refused in one sentence; a body detected as openai-responses whose part
    type is an array is left out with the dialect's reason, so nothing is checked."""
    import subprocess
    import sys

    for lines, code in ((DEEP_REPLY, 2), (ODD_TYPE, 4)):
        path = tmp_path / "log.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        done = subprocess.run(
            [sys.executable, "-m", "harness", "check-log", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == code, done.stderr
        assert "Traceback" not in done.stderr
        if code == 2:
            assert done.stderr.startswith("prefix-harness: error: ")
            assert done.stderr.count("\n") == 1
        else:
            assert "a content part's type must be a string" in done.stdout
