"""``prefix-harness check-log`` (harness/cli/_check_log.py): a recorded capture and the
minimal external format checked offline, the exit codes, JSON and JUnit output, and bad
input reported as one sentence naming the file and line."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.cli import _check_log
from harness.model import Preset
from tests.capture.simulate import ASK, PRESET, Runtime, call, calls, child_history, results, text

ROOT = Path(__file__).parents[2]
AGENT = ROOT / "examples" / "fork-agent"


def check_log(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="prefix-harness")
    _check_log.add_parser(parser.add_subparsers())
    args = parser.parse_args(["check-log", *argv])
    code: int = args.run(args)
    return code


def write(path: Path, lines: list[Any]) -> str:
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return str(path)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real capture of the example fork agent (correct, so every rule passes)."""
    record = tmp_path_factory.mktemp("capture") / "agent.jsonl"
    command = [sys.executable, "-m", "harness", "capture", "--dialect", "openai"]
    command += ["--script", str(AGENT / "script.json"), "--record", str(record)]
    command += ["--", sys.executable, str(AGENT / "agent.py")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return record


def planted(tmp_path: Path) -> str:
    """Hand-made records of a fork whose child dates its system prompt."""
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A: list the files")), mark="parent")
    dated = Preset(system=(*PRESET.system, "Today is 2026-01-01."), tools=PRESET.tools)
    rt.send(child_history([ASK], turn, "A: list the files"), text("done"), preset=dated)
    rt.send((ASK, turn, results(turn, "started")), text("ok"), mark="parent")
    return write(tmp_path / "planted.jsonl", [r.to_json() for r in rt.records])


def test_a_recorded_capture_passes(recorded: Path, capfd: pytest.CaptureFixture[str]) -> None:
    assert check_log(str(recorded)) == 0
    out, _ = capfd.readouterr()
    assert "  ✓ siblings-1 " in out
    assert "  ✓ spawn-" in out
    assert out.endswith(
        "checked: 4 groups, 0 failed, 0 not checked"
        "; turns of 3 conversations, 0 not append-only\nverdict: conforming — exit 0\n"
    )


def test_the_minimal_external_format_passes(
    recorded: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The same requests with only body, path and mark: model turns come from the agent's
    own copies in its later requests instead of the recorded replies."""
    lines = [orjson.loads(line) for line in recorded.read_bytes().splitlines()]
    minimal = [
        {"body": line["body"], "path": line["path"], "mark": line["mark"]}
        for line in lines
        if line["status"] == 200
    ]
    log = write(tmp_path / "external.jsonl", minimal)
    assert check_log(log, "--subject", "external") == 0
    out, _ = capfd.readouterr()
    assert "  ✓ siblings-" in out
    assert "checked: 4 groups, 0 failed, 0 not checked" in out
    assert out.endswith("verdict: conforming — exit 0\n")


def test_a_failing_rule_exits_1_and_is_named(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert check_log(planted(tmp_path)) == 1
    out, _ = capfd.readouterr()
    assert "\n✗ system-identical: " in out
    assert out.endswith(
        "checked: 1 group, 1 failed, 0 not checked"
        "; turns of 1 conversation, 0 not append-only\n"
        "verdict: NOT conforming: system-identical, byte-prefix failed — exit 1\n"
    )


def test_json_and_junit(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "report.xml"
    assert check_log(planted(tmp_path), "--json", "--junit-xml", str(junit)) == 1
    out, _ = capfd.readouterr()
    document = orjson.loads(out)
    assert document["summary"]["failed"] == 1
    assert document["grouping"]["checks"][0]["scenario"] == "fork-1"
    cases = ET.parse(junit).getroot().findall("testsuite/testcase")
    assert "system-identical" in [c.get("name") for c in cases if c.find("failure") is not None]


def test_grouping_options_are_used(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("Task", kind="worker", prompt="do it")))
    rt.send(child_history([ASK], turn, "do it"), text("done"))
    log = write(tmp_path / "task.jsonl", [r.to_json() for r in rt.records])
    assert check_log(log, "--fork-tool", "Task", "--directive-key", "prompt") == 0
    out, _ = capfd.readouterr()
    assert "fork-1  fork at request 1: 1 Task call in conversation 1" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty.jsonl: the file is empty"),
        (
            b'{"dialect": "openai", "body": {"messages": [{"role": "user", "content": "hi"}]}}\n'
            b'{"bad\n',
            "empty.jsonl: line 2: not valid JSON",
        ),
        (b'{"no": "body"}\n', 'empty.jsonl: line 1: the line has no "body"'),
        ("{}".encode("utf-16"), "empty.jsonl: the file is UTF-16"),
        (b'{"body": ' + b"[" * 2000 + b"]" * 2000 + b"}\n", "line 1: nested deeper than"),
        (b'{"body": "\xff"}\n', "line 1: not valid JSON (str is not valid UTF-8"),
    ],
)
def test_bad_input_exits_2_with_the_file_and_line(
    content: bytes, message: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "empty.jsonl"
    log.write_bytes(content)
    assert check_log(str(log)) == 2
    out, err = capfd.readouterr()
    assert out == ""
    assert err.startswith("prefix-harness: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_missing_file_and_unwritable_junit(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert check_log(str(tmp_path / "none.jsonl")) == 2
    assert "none.jsonl: cannot be read" in capfd.readouterr().err
    bad = str(tmp_path / "no" / "dir" / "r.xml")
    assert check_log(planted(tmp_path), "--junit-xml", bad) == 2
    out, err = capfd.readouterr()
    assert err == (
        f"prefix-harness: error: {bad}: the JUnit XML report cannot be written: the directory"
        f" {tmp_path / 'no' / 'dir'} does not exist\n"
    )
    assert out == ""  # said before the check, not after it


@pytest.mark.parametrize(
    "shell",
    [
        'check-log "$LOG"',
        'check-log <(cat "$LOG")',
        'check-log /dev/stdin < <(cat "$LOG")',
        'check-log - < <(cat "$LOG")',
    ],
    ids=["file", "process-substitution", "dev-stdin-pipe", "dash"],
)
def test_a_log_given_as_a_pipe_is_checked_as_the_file_is(tmp_path: Path, shell: str) -> None:
    """A pipe cannot be read twice: it is copied aside first, whatever names it."""
    log = planted(tmp_path)
    harness = f"{sys.executable} -m harness"
    done = subprocess.run(
        ["bash", "-c", f"{harness} {shell}"],
        env={**os.environ, "LOG": log},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 1, done.stderr  # system-identical fails, as for the file
    assert "✗ system-identical" in done.stdout
    assert done.stderr == ""


def test_unknown_dialect_option_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        check_log(planted(tmp_path), "--dialect", "cohere")
    assert raised.value.code == 2


# --- --expect ----------------------------------------------------------------------------------


def expect_file(tmp_path: Path, *entries: tuple[str, str]) -> str:
    path = tmp_path / "expect.toml"
    path.write_text(
        "".join(
            f'[[known-failure]]\nscenario = "{s}"\nrule = "{r}"\nreason = "dated system prompt"\n'
            for s, r in entries
        )
    )
    return str(path)


def test_expected_failures_do_not_fail_the_run(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = planted(tmp_path)
    expect = expect_file(tmp_path, ("fork-1", "system-identical"), ("fork-1", "byte-prefix"))
    code = check_log(log, "--expect", expect)
    out, _ = capfd.readouterr()
    failing = [line for line in out.splitlines() if line.startswith("✗")]
    assert code == 0, failing
    assert failing == []
    assert f"expected failures (2, from {expect}):" in out
    assert "  system-identical · fork-1: dated system prompt" in out
    assert " — failed as expected: system-identical, byte-prefix\n" in out
    assert out.endswith("verdict: conforming, 2 expected failures — exit 0\n")


def test_an_unexpected_failure_still_fails(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    expect = expect_file(tmp_path, ("fork-1", "byte-prefix"))
    assert check_log(planted(tmp_path), "--expect", expect) == 1


def test_an_entry_that_passes_or_matches_nothing_fails_the_run(
    recorded: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    expect = expect_file(tmp_path, ("siblings-1", "tools-identical"), ("fork-99", "byte-prefix"))
    assert check_log(str(recorded), "--expect", expect) == 1
    out, _ = capfd.readouterr()
    assert "UNEXPECTED PASSES (2)" in out
    assert (
        "  byte-prefix · fork-99: never matched: no scenario 'fork-99' in this run"
        " (dated system prompt)"
    ) in out
    assert out.endswith(
        "verdict: NOT conforming: 2 expected failures did not happen (passed or never matched)"
        " — exit 1\n"
    )


def test_a_bad_expect_file_is_one_sentence(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[[known-failure]]\nrule = 3\n")
    assert check_log(planted(tmp_path), "--expect", str(bad)) == 2
    _, err = capfd.readouterr()
    assert err.startswith("prefix-harness: error: ")


def test_a_body_that_cannot_be_read_is_left_out_and_inconclusive(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    body = {"model": "m", "messages": [{"role": ["user"], "content": "hi"}]}
    log = write(tmp_path / "odd.jsonl", [{"body": body, "dialect": "openai"}])
    assert check_log(log) == 4
    out, err = capfd.readouterr()
    assert err == ""
    assert "left out: request 1: the openai dialect cannot read the body" in out
    assert "verdict: INCONCLUSIVE" in out


def respelled(tmp_path: Path) -> str:
    """A fork whose child sends the inherited messages with their keys in reverse order:
    the same prompt to the provider, other bytes."""
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A: list the files")), mark="parent")
    rt.send(child_history([ASK], turn, "A: list the files"), text("done"))
    rt.send((ASK, turn, results(turn, "started")), text("ok"), mark="parent")
    lines = [r.to_json() for r in rt.records]
    child = orjson.loads(lines[1]["body"])
    child["messages"] = [dict(reversed(list(m.items()))) for m in child["messages"]]
    lines[1]["body"] = orjson.dumps(child).decode()
    return write(tmp_path / "respelled.jsonl", lines)


def test_strict_bytes_flag(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    log = respelled(tmp_path)
    assert check_log(log) == 0
    out, _ = capfd.readouterr()
    assert out.endswith("verdict: conforming — exit 0\n"), out
    assert check_log(log, "--strict-bytes") == 1
    out, _ = capfd.readouterr()
    assert "✗ byte-prefix" in out


USAGE_SYSTEM = "You are a careful assistant who reads every file before answering. " * 120


def claude(*turns: str) -> dict[str, Any]:
    """An Anthropic body with a breakpoint on a system prompt past the minimum."""
    block = {"type": "text", "text": USAGE_SYSTEM, "cache_control": {"type": "ephemeral"}}
    roles = ("user", "assistant")
    messages = [{"role": roles[i % 2], "content": t} for i, t in enumerate(turns)]
    return {"model": "claude-sonnet-4-5", "max_tokens": 64, "system": [block], "messages": messages}


def reported(read: int, written: int, uncached: int = 12) -> dict[str, int]:
    return {
        "input_tokens": uncached,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
    }


def usage_log(tmp_path: Path) -> str:
    """Three turns reporting usage: agreeing, agreeing (in a whole response), and a
    turn reported as reading nothing where the model predicts a read; one bad value."""
    return write(
        tmp_path / "usage.jsonl",
        [
            {"body": claude("hello"), "usage": reported(0, 1600)},
            {"body": claude("hello", "hi", "more"), "response": {"usage": reported(1600, 0)}},
            {"body": claude("hello", "hi", "more", "ok", "again"), "usage": reported(0, 0, 1624)},
            {"body": claude("hello", "hi", "more", "ok", "last"), "usage": reported(-5, 0)},
        ],
    )


def test_reported_usage_is_shown_beside_the_prediction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text report's section: one line per request reporting usage, a disagreement
    flagged, a bad value not compared, and the count; the exit code is the rules' alone."""
    code = check_log(usage_log(tmp_path))
    out = capsys.readouterr().out
    # the fourth request is a recognised session fork, and conforms: a disagreement fails nothing
    assert code == 0
    section = out[out.index("cache usage: predicted vs reported") :].splitlines()
    assert "anthropic counts are estimates" in section[0]
    assert section[1].startswith("  request 1 (conversation 1, anthropic): read 0/0 · written ")
    assert "DISAGREES" not in section[1] + section[2]
    assert section[3].startswith("  request 3 (conversation 1, anthropic): read ")
    assert "DISAGREES: " in section[3]
    assert "tokens read predicted, none reported" in section[3]
    assert section[4] == (
        "  request 4 (conversation 2, anthropic): not compared:"
        ' "cache_read_input_tokens" is -5, a negative token count'
    )
    assert section[5].startswith("  4 requests report usage: 3 compared, 1 disagrees (tolerance: ")


def test_reported_usage_in_the_json_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.reports.formats import assert_valid_report

    check_log(usage_log(tmp_path), "--json")
    document = orjson.loads(capsys.readouterr().out)
    assert_valid_report(document)
    usage = document["cache_usage"]
    assert (usage["compared"], usage["disagreements"]) == (3, 1)
    assert [r["request"] for r in usage["requests"]] == [1, 2, 3, 4]
    third = usage["requests"][2]
    assert third["reported"]["fields"]["cache_read_input_tokens"] == 0
    assert third["predicted"]["fields"]["cache_read_input_tokens"] > 0
    assert third["disagreements"]
    assert usage["requests"][3]["reported"] is None
    assert "negative" in usage["requests"][3]["not_compared"]


def test_a_log_without_usage_prints_nothing_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "plain.jsonl", [{"body": claude("hello")}])
    check_log(path)
    assert "cache usage" not in capsys.readouterr().out
    check_log(path, "--json")
    assert orjson.loads(capsys.readouterr().out)["cache_usage"] is None
