"""``prefix-harness diff``: one test per flag, exit codes, and every kind of bad input."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from harness.cli import run

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
    assert "structure (deepdiff of the segment):" in out


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
    assert report["divergence"]["fork_segment"] == "messages[0]"
    assert report["divergence"]["path"] == "messages[0].content"
    assert report["shared_bytes"] == report["divergence"]["offset"]
    assert 0 < report["share_of_fork"] < 1


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
