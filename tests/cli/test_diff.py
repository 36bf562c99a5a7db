"""``prefix-harness diff``: one test per flag, exit codes, and every kind of bad input."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness._bodies import decode_body
from harness.cli import run
from harness.dialects import get_dialect
from harness.prefix import compare
from harness.reports import DiffSubjects, diff_json, diff_text
from tests.prefix.pairs import IDS, PAIRS, Pair

EXAMPLES = Path(__file__).parents[2] / "examples" / "openai"
PARENT, FORK, BROKEN = (str(EXAMPLES / n) for n in ("parent.json", "fork.json", "fork-broken.json"))


def diff(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(["diff", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_kept_prefix_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = diff(capsys, PARENT, FORK)
    assert code == 0, err
    assert "PREFIX KEPT" in out
    assert "dialect: openai\n" in out


def test_broken_prefix_exits_1_and_says_where(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = diff(capsys, PARENT, BROKEN)
    assert code == 1
    assert "PREFIX BROKEN at byte" in out
    assert "  path     messages[0].content\n" in out
    assert "Today is 2026-11-30" in out
    assert "structure:" in out


RESPONSES = Path(__file__).parents[2] / "examples" / "openai-responses"


@pytest.mark.parametrize(("fork", "code"), [("fork.json", 0), ("fork-broken.json", 1)])
def test_responses_bodies_are_detected_and_compared(
    capsys: pytest.CaptureFixture[str], fork: str, code: int
) -> None:
    found, out, err = diff(capsys, str(RESPONSES / "parent.json"), str(RESPONSES / fork))
    assert found == code, err
    assert "dialect: openai-responses\n" in out
    if code:
        assert "  segment  instructions\n" in out
        assert "Today is 2026-11-30" in out


def test_responses_breakpoints_do_not_count(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A child that moves an explicit cache breakpoint keeps the parent's prefix."""
    parent = orjson.loads((RESPONSES / "parent.json").read_bytes())
    marked = orjson.loads((RESPONSES / "fork.json").read_bytes())
    marked["input"][0]["content"][0]["prompt_cache_breakpoint"] = {"mode": "explicit"}
    (tmp_path / "p.json").write_bytes(orjson.dumps(parent))
    (tmp_path / "f.json").write_bytes(orjson.dumps(marked))
    code, out, err = diff(capsys, str(tmp_path / "p.json"), str(tmp_path / "f.json"))
    assert code == 0, err
    assert "PREFIX KEPT" in out


def test_json_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = diff(capsys, PARENT, BROKEN, "--json")
    report = orjson.loads(out)
    assert code == 1
    assert report["preserved"] is False
    assert report["divergence"]["fork_segment"] == "messages[0].content"
    assert report["divergence"]["path"] == "messages[0].content"
    assert report["shared_bytes"] == report["divergence"]["offset"]
    assert 0 < report["share_of_fork"] < 1
    assert report["view"] == "rendered"
    assert report["cache"]["lost_to_divergence"] == report["cache"]["lost_tokens"] > 0
    assert report["cache"]["miss_reason"] == "input_changed"  # OpenAI's name for a changed prompt


def test_strict_bytes_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A message object's key order is not in the prompt: kept by default, broken in the
    byte view --strict-bytes keeps for teams that pin byte identity."""
    parent, fork = tmp_path / "p.json", tmp_path / "f.json"
    parent.write_text('{"messages": [{"role": "user", "content": "x"}]}')
    fork.write_text(
        '{"messages": [{"content": "x", "role": "user"}, {"role": "assistant", "content": "y"}]}'
    )
    code, out, _ = diff(capsys, str(parent), str(fork), "--dialect", "openai")
    assert code == 0, out
    assert "compared: rendered prefix" in out
    assert "same to the cache (inferred): the key order of a message, a part or an item" in out
    code, out, _ = diff(capsys, str(parent), str(fork), "--dialect", "openai", "--strict-bytes")
    assert code == 1, out
    assert "compared: bytes as sent (--strict-bytes)" in out
    assert "PREFIX BROKEN at byte " in out
    code, out, _ = diff(
        capsys, str(parent), str(fork), "--dialect", "openai", "--strict-bytes", "--json"
    )
    assert (code, orjson.loads(out)["view"]) == (1, "bytes")


def test_dialect_flag_overrides_detection(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = diff(capsys, PARENT, FORK, "--dialect", "gemini")
    assert code == 2
    assert "is not a valid Gemini generateContent request" in err


def test_guessed_dialect_is_said(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    body = tmp_path / "plain.json"
    body.write_bytes(b'{"messages": [{"role": "user", "content": "hi"}]}')
    code, out, _ = diff(capsys, str(body), str(body))
    assert code == 0
    assert "(guessed: pass --dialect to choose)" in out


def test_context_flag(capsys: pytest.CaptureFixture[str]) -> None:
    _, narrow, _ = diff(capsys, PARENT, BROKEN, "--context", "5")
    _, wide, _ = diff(capsys, PARENT, BROKEN, "--context", "60")
    fork_line = next(line for line in narrow.splitlines() if line.startswith("  fork     "))
    assert len(fork_line) < 30
    assert len(fork_line) < len(next(x for x in wide.splitlines() if x.startswith("  fork     ")))


def test_stdin_dash(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(FORK).read_bytes())))
    code, out, _ = diff(capsys, PARENT, "-")
    assert code == 0
    assert "<stdin>" in out


def test_both_from_stdin_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = diff(capsys, "-", "-")
    assert code == 2
    assert "only one of PARENT and FORK" in err


def test_max_body_size_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = diff(capsys, PARENT, FORK, "--max-body-size", "1k")
    assert code == 2
    assert "over the 1,024 bytes limit for one body" in err


def test_bad_max_body_size_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run(["diff", PARENT, FORK, "--max-body-size", "lots"])
    assert exited.value.code == 2
    assert "is not a size such as" in capsys.readouterr().err


def deep_file(path: Path) -> None:
    path.write_bytes(b'{"messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}")


def huge_file(path: Path) -> None:
    with open(path, "wb") as f:  # sparse: 200 MB on paper, nothing on disk
        f.truncate(200 * 1024 * 1024)


BAD_INPUTS = {
    "invalid JSON": (lambda p: p.write_bytes(b"{'model': 'x'}"), "is not valid JSON"),
    "not of the dialect": (
        lambda p: p.write_bytes(b'{"messages": "hello", "tool_choice": "auto"}'),
        "is not a valid OpenAI chat completions request",
    ),
    "not UTF-8": (
        lambda p: p.write_bytes(b'{"messages": ["\xff\xfe"]}'),
        "is not valid UTF-8 text",
    ),
    "truncated": (
        lambda p: p.write_bytes(Path(FORK).read_bytes()[:300]),
        "the file looks truncated",
    ),
    "10,000 deep": (deep_file, "is nested more than 1,024 levels deep"),
    "200 MB": (huge_file, "is 209.7 MB, over the 134.2 MB limit for one body"),
    "not an object": (
        lambda p: p.write_bytes(b"[1, 2]"),
        "the body is an array, not a JSON object",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_one_sentence_naming_the_file(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write, problem = BAD_INPUTS[case]
    bad = tmp_path / "bad.json"
    write(bad)
    code, out, err = diff(capsys, PARENT, str(bad))
    assert code == 2
    assert out == ""
    assert err.startswith(f"prefix-harness: error: {bad}: ")
    assert problem in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = diff(capsys, str(tmp_path / "gone.json"), FORK)
    assert code == 2
    assert err == f"prefix-harness: error: {tmp_path / 'gone.json'}: no such file\n"


def test_console_script_runs_as_a_real_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness", "diff", PARENT, BROKEN, "--json"],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert orjson.loads(done.stdout)["divergence"]["path"] == "messages[0].content"


def _snapshot_parent(dialect: str) -> dict[str, Any]:
    snapshot = Path(__file__).parents[2] / "snapshots" / dialect / "continuable-follow-ups.json"
    parent: dict[str, Any] = orjson.loads(snapshot.read_bytes())["parent"]
    return parent


WRONG_TYPES = {
    "anthropic": [("messages", 0, "role"), ("messages", 0, "content"), ("tools", 0)],
    "openai": [("messages", 0, "role"), ("messages", 1, "content"), ("tools", 0)],
    "gemini": [("contents", 0, "role"), ("contents", 0, "parts"), ("tools", 0)],
    "openai-responses": [("input", 0, "role"), ("input", 0, "content"), ("tools", 0)],
}


def _put(body: Any, path: tuple[str | int, ...], value: Any) -> Any:
    body = orjson.loads(orjson.dumps(body))
    holder = body
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return body


@pytest.mark.parametrize(
    ("dialect", "path", "value"),
    [
        (dialect, path, value)
        for dialect, found in WRONG_TYPES.items()
        for path in found
        for value in (["user"], {"a": 1}, 7, "text", None)
    ],
)
def test_a_value_of_the_wrong_type_is_bad_input_naming_the_file(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    dialect: str,
    path: tuple[str | int, ...],
    value: Any,
) -> None:
    """Class 1: wrong JSON types exit 2 with one sentence, in every dialect, never 1."""
    parent = _snapshot_parent(dialect)
    body = _put(parent, path, value)
    (tmp_path / "p.json").write_bytes(orjson.dumps(parent))
    bad = tmp_path / "bad.json"
    bad.write_bytes(orjson.dumps(body))
    code, out, err = diff(capsys, str(tmp_path / "p.json"), str(bad), "--dialect", dialect)
    if code != 2:  # a value the dialect may read (a text as a string): judged, not a crash
        assert code in (0, 1), err
        assert "Traceback" not in err
        return
    assert out == ""
    assert err.startswith(f"prefix-harness: error: {bad}: is not a valid ")
    assert err.count("\n") == 1


def _nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"0" + b"}" * depth


@pytest.mark.parametrize("depth", [200, 254, 255, 600, 1_000, 1_015])
@pytest.mark.parametrize("where", ["role", "setting", "tool schema", "content"])
def test_deep_nesting_is_judged_or_refused_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, depth: int, where: str
) -> None:
    """Class 2: a value nested from 200 levels to orjson's decoding limit (1,024) is compared
    (exit 0 or 1) or refused naming the file (exit 2), never a traceback."""
    parent = _snapshot_parent("openai")
    path: tuple[str | int, ...] = {
        "role": ("messages", 0, "role"),
        "setting": ("tool_choice",),
        "tool schema": ("tools", 0, "function", "parameters", "properties"),
        "content": ("messages", 1, "content"),
    }[where]
    raw = orjson.dumps(_put(parent, path, "@@")).replace(b'"@@"', _nested(depth - len(path)))
    (tmp_path / "p.json").write_bytes(orjson.dumps(parent))
    for pair in (("p.json", "f.json"), ("f.json", "f.json")):
        (tmp_path / "f.json").write_bytes(raw)
        code, out, err = diff(capsys, *(str(tmp_path / n) for n in pair), "--json")
        assert "Traceback" not in err
        if code == 2:
            assert err.startswith(f"prefix-harness: error: {tmp_path / 'f.json'}: ")
            assert err.count("\n") == 1
        else:
            report = orjson.loads(out)
            assert (code == 0) is report["preserved"]
            assert (code == 0) is (pair[0] == "f.json" or where == "setting")
    if where == "tool schema":  # compared byte for byte: the same deep schema keeps the prefix
        assert code == 0


def test_integers_beyond_64_bits_are_compared_exactly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Class 3: two bodies differing only in the last digit of a 65-bit integer."""
    parent = _snapshot_parent("openai")
    path = ("tools", 0, "function", "parameters", "maximum")
    big = 2**64 + 1
    for name, n in (("p.json", big), ("f.json", big + 1), ("same.json", big)):
        (tmp_path / name).write_text(
            orjson.dumps(_put(parent, path, "@@")).decode().replace('"@@"', str(n))
        )
    code, out, err = diff(capsys, str(tmp_path / "p.json"), str(tmp_path / "f.json"))
    assert code == 1, err
    assert "PREFIX BROKEN" in out
    assert f"{big} in the parent, {big + 1} in the fork" in out
    code, out, err = diff(capsys, str(tmp_path / "p.json"), str(tmp_path / "same.json"), "--json")
    assert code == 0, err
    code, out, err = diff(capsys, str(tmp_path / "p.json"), str(tmp_path / "f.json"), "--json")
    assert code == 1
    assert orjson.loads(out)["divergence"]["path"] == "tools[0].function.parameters.maximum"


def test_a_byte_order_mark_is_skipped_and_duplicate_keys_are_warned(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Class 4: a BOM is no longer "not valid UTF-8"; a key sent twice is a warning on
    stderr naming the file, and the verdict is unchanged (the last value is compared)."""
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + Path(FORK).read_bytes())
    code, out, err = diff(capsys, PARENT, str(bom))
    assert code == 0, err
    assert err == ""
    text = Path(BROKEN).read_text()
    dup = tmp_path / "dup.json"
    dup.write_text(text.replace('"model":', '"model": "other", "model":', 1))
    assert text != dup.read_text()
    code, out, err = diff(capsys, PARENT, str(dup))
    assert code == 1
    assert "PREFIX BROKEN" in out
    assert err == (
        f'prefix-harness: warning: {dup}: an object holds the same key twice ("model");'
        " only the last of each is compared, and a provider may read another\n"
    )


def test_control_characters_of_a_body_are_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A key and a text holding terminal escapes reach the terminal escaped."""
    parent = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    fork = {"model": "m", "messages": [{"role": "user", "content": "hi", "n\x1b[2J": "\x07"}]}
    (tmp_path / "p.json").write_bytes(orjson.dumps(parent))
    (tmp_path / "f.json").write_bytes(orjson.dumps(fork))
    code, out, _ = diff(capsys, str(tmp_path / "p.json"), str(tmp_path / "f.json"))
    assert code == 1
    assert "\x1b" not in out
    assert "\x07" not in out


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_edge_bodies_are_judged_by_their_values_and_warn_of_keys_held_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pair: Pair
) -> None:
    """Whitespace, escapes and a byte-order mark do not count, a number that only starts
    alike does, an integer beyond 64 bits is compared exactly, and a key held twice is
    compared by its last value and said on stderr, naming the file."""
    parent, fork = tmp_path / "p.json", tmp_path / "f.json"
    parent.write_bytes(pair.parent)
    fork.write_bytes(pair.fork)
    code, out, err = diff(capsys, str(parent), str(fork))
    assert code == (0 if pair.kept else 1), out
    assert ("an object holds the same key twice" in err) is pair.warned
    assert err.count("prefix-harness: warning:") == int(pair.warned)
    code, out, _ = diff(capsys, str(parent), str(fork), "--json")
    assert orjson.loads(out)["preserved"] is pair.kept


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_the_report_is_that_of_the_bodies_read_one_at_a_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pair: Pair
) -> None:
    """The text, the JSON, the warnings and the exit code are those of each body decoded
    alone and every segment encoded (``decode_pair``'s fast path changes nothing)."""
    parent, fork = tmp_path / "p.json", tmp_path / "f.json"
    parent.write_bytes(pair.parent)
    fork.write_bytes(pair.fork)
    warnings: list[str] = []
    bodies = [decode_body(p.read_bytes(), source=str(p), warnings=warnings) for p in (parent, fork)]
    dialect = get_dialect("openai")
    alone = compare(dialect.parse(bodies[0]), dialect.parse(bodies[1]))
    subjects = DiffSubjects(str(parent), str(fork))
    said = "".join(f"prefix-harness: warning: {w}\n" for w in warnings)
    code, out, err = diff(capsys, str(parent), str(fork))
    assert (code, out, err) == (0 if alone.preserved else 1, diff_text(alone, subjects), said)
    code, out, err = diff(capsys, str(parent), str(fork), "--json")
    assert out.encode() == diff_json(alone, subjects)
    assert (code, err) == (0 if alone.preserved else 1, said)


@pytest.mark.parametrize("pair", PAIRS[:3], ids=IDS[:3])
def test_one_file_named_twice_is_one_body(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pair: Pair
) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(pair.fork)
    code, out, err = diff(capsys, str(path), str(path))
    assert (code, err) == (0, "")
    assert "PREFIX KEPT" in out
