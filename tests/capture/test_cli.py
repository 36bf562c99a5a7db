"""``prefix-harness capture`` (harness/cli/_capture.py), run in-process on real programs
started as subprocesses: an openai SDK program, the toy fork agent (recorded and checked),
a program that never calls the provider, and programs that hang."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import orjson
import pytest

from harness.capture import read_record
from harness.cli import _capture
from harness.dialects import providers
from harness.prefix import compare

from .conftest import FullDisk

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "capture"
RESPONSES_AGENT = Path(__file__).with_name("responses_agent.py")
PY = sys.executable

SDK_PROGRAM = """
import openai
client = openai.OpenAI(max_retries=0, timeout=10)
reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
print("first:", reply.choices[0].message.content)
stream = client.chat.completions.create(
    model="m", messages=[{"role": "user", "content": "again"}], stream=True
)
print("second:", "".join(c.choices[0].delta.content or "" for c in stream if c.choices))
"""
SCRIPT = {
    "rules": [{"when": {"last_user_contains": "hi"}, "reply": {"text": "hello"}, "mark": "greet"}],
    "default": {"text": "streamed default"},
}


def capture(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="prefix-harness")
    _capture.add_parser(parser.add_subparsers())
    args = parser.parse_args(["capture", *argv])
    code: int = args.run(args)
    return code


@pytest.fixture
def script(tmp_path: Path) -> str:
    path = tmp_path / "script.json"
    path.write_bytes(orjson.dumps(SCRIPT))
    return str(path)


def test_sdk_program_is_captured(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "out.jsonl"
    code = capture(
        "--dialect", "openai", "--script", script, "--record", str(record),
        "--", PY, "-c", SDK_PROGRAM,
    )  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 4, err  # no fork: captured, but nothing to check
    assert "first: hello\n" in out
    assert "second: streamed default\n" in out
    assert "fake openai provider: http://127.0.0.1:" in out
    assert "  OPENAI_API_KEY=sk-prefix-harness-fake\n" in out
    assert "  ANTHROPIC_BASE_URL=http://127.0.0.1:" in out
    assert "  GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:" in out
    assert "command exited with status 0\n" in out
    assert "recorded 2 requests\n" in out
    assert "  by mark:   greet 1, (default reply) 1\n" in out
    assert "  by status: 200 2\n" in out
    records = read_record(record)
    assert [(r.mark, r.stream) for r in records] == [("greet", False), (None, True)]
    assert all(r.headers["authorization"] == "<redacted>" for r in records)
    assert "sk-prefix-harness-fake" not in record.read_text()


RESPONSES_PROGRAM = """
import openai
client = openai.OpenAI(max_retries=0, timeout=10)
reply = client.responses.create(model="m", instructions="Be brief.", input="hi")
print("first:", reply.output_text)
events = client.responses.create(model="m", input="again", stream=True)
print("second:", "".join(e.delta for e in events if e.type == "response.output_text.delta"))
print("tokens:", client.responses.input_tokens.count(model="m", input="hi").input_tokens > 0)
"""


def test_responses_sdk_program_is_captured_as_openai_responses(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "responses.jsonl"
    code = capture(
        "--dialect", "openai-responses", "--script", script, "--record", str(record),
        "--", PY, "-c", RESPONSES_PROGRAM,
    )  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 4, err  # no fork: captured, but nothing to check
    assert "first: hello\nsecond: streamed default\ntokens: True\n" in out
    assert "fake openai-responses provider: http://127.0.0.1:" in out
    assert "/v1 (requests recorded as openai-responses, openai)\n" in out
    assert "  by mark:   greet 1, (default reply) 1, (not a model call) 1\n" in out
    assert "grouping: 2 requests in 2 conversations (openai-responses)" in out
    assert "nothing was checked: no fork or spawn call among 2 usable model calls" in out
    records = read_record(record)
    assert [(r.dialect, r.path, r.stream) for r in records] == [
        ("openai-responses", "/v1/responses", False),
        ("openai-responses", "/v1/responses", True),
        ("openai-responses", "/v1/responses/input_tokens", None),
    ]
    assert records[0].parse().request.preset.system == ("Be brief.",)
    assert all(r.headers["authorization"] == "<redacted>" for r in records)
    assert "sk-prefix-harness-fake" not in record.read_text()


@pytest.mark.parametrize("dialect", ["openai", "openai-responses"])
def test_a_responses_fork_agent_is_grouped_and_checked(
    dialect: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "fork.jsonl"
    code = capture(
        "--dialect", dialect, "--script", str(EXAMPLES / "fork-siblings.json"),
        "--record", str(record), "--", PY, str(RESPONSES_AGENT),
    )  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 0, err
    assert "worker 'B: read the README': Worker done." in out
    records = read_record(record)
    assert {r.dialect for r in records} == {"openai-responses"}
    by_mark = {r.mark: r for r in records}
    assert by_mark["parent"].stream is True
    assert by_mark["fork-A"].stream is False
    parent = by_mark["parent"].parse()
    for child in ("fork-A", "fork-B"):
        assert compare(parent, by_mark[child].parse()).preserved
    assert "grouping: 6 requests in 3 conversations (openai-responses)" in out
    assert "capture · openai-responses · siblings-1: ok" in out
    assert out.endswith(
        "check passed: 3 groups checked, 0 failed, 0 not checked"
        "; turns of 3 conversations checked, 0 not append-only\n"
    )


def test_a_responses_fork_agent_with_reordered_tools_fails(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    code = capture(
        "--dialect", "openai", "--script", str(EXAMPLES / "fork-siblings.json"),
        "--record", str(tmp_path / "r"), "--", PY, str(RESPONSES_AGENT), "--bug", "tools",
    )  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 1, err
    assert "capture · openai-responses · siblings-1: FAILED" in out
    assert "✗ tools-identical     children[0]: tool `fork` moved from 0 to 1;" in out


def test_strict_bytes_flag(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Workers that send their inherited items with the keys reversed send the parent's
    prompt: the capture conforms, and fails byte-prefix in the byte view."""
    run = ("--dialect", "openai", "--script", str(EXAMPLES / "fork-siblings.json"))
    agent = ("--", PY, str(RESPONSES_AGENT), "--bug", "respell")
    assert capture(*run, *agent) == 0, capfd.readouterr()
    capfd.readouterr()
    assert capture(*run, "--strict-bytes", *agent) == 1
    out, _ = capfd.readouterr()
    assert "✗ byte-prefix" in out


ENV_PROGRAMS = {
    "anthropic": (
        "import anthropic\n"
        "c = anthropic.Anthropic(max_retries=0, timeout=10)\n"
        "hi = [{'role': 'user', 'content': 'hi'}]\n"
        "m = c.messages.create(model='c', max_tokens=8, messages=hi)\n"
        "print('got:', m.content[0].text)\n"
    ),
    "gemini": (
        "from google import genai\n"
        "c = genai.Client()\n"
        "print('got:', c.models.generate_content(model='g', contents='hi').text)\n"
    ),
}


@pytest.mark.parametrize("dialect", sorted(ENV_PROGRAMS))
def test_sdks_find_the_fake_from_the_environment(
    dialect: str, script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "env.jsonl"
    code = capture("--dialect", dialect, "--script", script, "--record", str(record),
                   "--", PY, "-c", ENV_PROGRAMS[dialect])  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 4, err  # no fork: captured, but nothing to check
    assert "got: hello\n" in out
    (only,) = read_record(record)
    assert only.mark == "greet"
    assert "sk-prefix-harness-fake" not in record.read_text()


def test_toy_fork_agent_keeps_the_prefix(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "fork.jsonl"
    code = capture(
        "--dialect", "openai", "--script", str(EXAMPLES / "fork-siblings.json"),
        "--record", str(record), "--", PY, str(EXAMPLES / "toy_agent.py"),
    )  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 0, err
    assert "worker 'A: list the files': Worker done." in out
    records = read_record(record)
    marks = sorted(r.mark or "" for r in records)
    assert marks == sorted(
        ["parent", "fork-A", "fork-B", "child-done", "child-done", "parent-after-fork"]
    )
    by_mark = {r.mark: r for r in records}
    parent = by_mark["parent"].parse()
    for child in ("fork-A", "fork-B"):
        assert compare(parent, by_mark[child].parse()).preserved
    assert "capture · openai · siblings-1: ok" in out
    assert out.endswith(
        "check passed: 3 groups checked, 0 failed, 0 not checked"
        "; turns of 3 conversations checked, 0 not append-only\n"
    )


def test_a_command_without_forks_is_inconclusive_and_exits_4(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    code = capture("--dialect", "openai", "--script", script, "--record", str(tmp_path / "r"),
                   "--", PY, "-c", SDK_PROGRAM)  # fmt: skip
    out, _ = capfd.readouterr()
    assert code == 4
    assert out.endswith(
        "check INCONCLUSIVE: 0 groups checked, 0 failed, 0 not checked\n"
        "  nothing was checked: no fork or spawn call among 2 usable model calls\n"
    )


def test_a_program_whose_requests_are_all_refused_is_inconclusive(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    program = (
        "import json, os, urllib.error, urllib.request\n"
        "url = os.environ['OPENAI_BASE_URL'] + '/embeddings'\n"
        "body = json.dumps({'model': 'm', 'input': 'hi'}).encode()\n"
        "for _ in range(3):\n"
        "    try: urllib.request.urlopen(urllib.request.Request(url, body), timeout=10)\n"
        "    except urllib.error.HTTPError as e: print('status', e.code)\n"
    )
    code = capture("--dialect", "openai", "--script", script, "--record", str(tmp_path / "r"),
                   "--", PY, "-c", program)  # fmt: skip
    out, _ = capfd.readouterr()
    assert code == 4
    assert "status 404\n" in out
    assert "check INCONCLUSIVE" in out
    refused = (
        "  3 refused by the fake; first: request 1: refused with status 404 (POST /v1/embeddings"
    )
    assert refused in out


def test_a_timed_out_command_is_still_checked_and_exits_3(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_capture, "GRACE_SECONDS", 0.3)
    program = (
        "import json, os, time, urllib.request\n"
        "url = os.environ['OPENAI_BASE_URL'] + '/chat/completions'\n"
        "body = json.dumps({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}]})\n"
        "urllib.request.urlopen(urllib.request.Request(url, body.encode()), timeout=10).read()\n"
        "time.sleep(60)\n"
    )
    code = capture("--dialect", "openai", "--script", script, "--record", str(tmp_path / "r"),
                   "--timeout", "1.5", "--", PY, "-c", program)  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 3
    assert "recorded 1 request" in out
    assert "grouping: 1 request in 1 conversation (openai)" in out
    assert "check INCONCLUSIVE" in out
    assert "timed out: the command did not finish within 1.5 s" in err


def test_command_that_never_calls_exits_3(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "none.jsonl"
    code = capture("--dialect", "anthropic", "--script", script, "--record", str(record),
                   "--", PY, "-c", "print('no calls')")  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 3
    assert "recorded 0 requests" in out
    assert "the command never called the fake provider" in err
    assert record.read_bytes() == b""


def test_command_exit_status_is_reported(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    program = (
        "import json, os, urllib.request\n"
        "url = os.environ['OPENAI_BASE_URL'] + '/chat/completions'\n"
        "body = json.dumps({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}]})\n"
        "urllib.request.urlopen(urllib.request.Request(url, body.encode()), timeout=10).read()\n"
        "raise SystemExit(4)\n"
    )
    code = capture("--dialect", "openai", "--script", script, "--record", str(tmp_path / "r"),
                   "--", PY, "-c", program)  # fmt: skip
    out, _ = capfd.readouterr()
    assert code == 4  # the program's own status is not judged; nothing was checked
    assert "command exited with status 4\n" in out


def test_hanging_command_times_out_and_its_group_is_ended(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_capture, "GRACE_SECONDS", 0.3)
    pids = tmp_path / "pids"
    program = (
        "import os, signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pids)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    began = time.monotonic()
    code = capture("--dialect", "gemini", "--script", script, "--record", str(tmp_path / "r"),
                   "--timeout", "1", "--", PY, "-c", program)  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 3
    assert time.monotonic() - began < 10
    assert "timed out: the command did not finish within 1 s" in err
    assert "were ended (SIGTERM, then SIGKILL after 0.3 s)" in err
    assert "recorded 0 requests" in out
    grandchild = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:  # SIGKILL lands asynchronously
        time.sleep(0.05)
    assert not _alive(grandchild)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--script", "{script}", "--"], "give the command to run after --"),
        (["--script", "{script}", "--timeout", "0", "--", "true"], "--timeout must be more"),
        (["--script", "{script}", "--fork-tag", "", "--", "true"], "--fork-tag must not be empty"),
        (["--script", "{missing}", "--", "true"], "missing.json: no such script file"),
        (["--script", "{bad}", "--", "true"], "bad.json: rules[0].when: unknown field 'firts'"),
        (["--script", "{script}", "--host", "0.0.0.0", "--", "true"], "refusing to bind"),
        (["--script", "{script}", "--", "no-such-program-xyz"], "cannot run 'no-such-program-xyz'"),
        (
            ["--script", "{script}", "--record", "{tmp}/no/dir/r.jsonl", "--", "true"],
            "r.jsonl: the record cannot be written: the directory",
        ),
    ],
)
def test_bad_usage_exits_2(
    argv: list[str], message: str, script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": [{"when": {"firts": true}, "reply": {"text": "x"}}]}')
    names = {"script": script, "missing": str(tmp_path / "missing.json"), "bad": str(bad)}
    names["tmp"] = str(tmp_path)
    code = capture("--dialect", "openai", *(a.format(**names) for a in argv))
    _, err = capfd.readouterr()
    assert code == 2
    assert message in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--html", "{tmp}/no/dir/r.html"], "r.html: the HTML report cannot be written: the"),
        (["--junit-xml", "{tmp}"], "the JUnit XML report cannot be written: it is a directory"),
        (["--summary-md", "{tmp}/no/s.md"], "s.md: the summary cannot be written: the directory"),
        (["--write-expect", "{tmp}/no/e.toml"], "e.toml: the known-failures file cannot be"),
        (["--record", "/dev/null"], "/dev/null: the record cannot be written: it is not a"),
        (["--html", "{tmp}/x", "--junit-xml", "{tmp}/x"], "--html and --junit-xml name the same"),
        (["--record", "{tmp}/x", "--html", "{tmp}/x"], "--record and --html name the same file"),
    ],
)
def test_an_output_that_cannot_be_written_is_found_before_the_command_runs(
    options: list[str], message: str, script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    ran = tmp_path / "ran"
    argv = [o.format(tmp=tmp_path) for o in options]
    code = capture("--dialect", "openai", "--script", script, *argv,
                   "--", "sh", "-c", f"touch {ran}")  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 2
    assert err.startswith("prefix-harness: error: ")
    assert message in err
    assert len(err.splitlines()) == 1
    assert out == ""
    assert not ran.exists()  # the command never ran


def test_every_fake_provider_is_a_choice() -> None:
    parser = argparse.ArgumentParser()
    _capture.add_parser(parser.add_subparsers())
    actions = parser._subparsers._group_actions[0].choices["capture"]._actions  # type: ignore[union-attr]
    (dialect,) = [a for a in actions if a.dest == "dialect"]
    assert dialect.choices == list(providers())
    assert set(providers()) == {"anthropic", "gemini", "openai", "openai-responses"}


def test_unknown_dialect_is_a_usage_error(script: str) -> None:
    with pytest.raises(SystemExit) as raised:
        capture("--dialect", "cohere", "--script", script, "--", "true")
    assert raised.value.code == 2


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to reap it does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    try:
        return "\nState:\tZ" not in status.read_text()
    except FileNotFoundError:
        return False


FOREVER_AGENT = """
import json, os, time, urllib.error, urllib.request
url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
while True:  # a stubborn agent: it never stops by itself
    request = urllib.request.Request(url, body, {"content-type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=10).read()
    except urllib.error.HTTPError as e:
        e.read()
    time.sleep(0.05)
"""


def test_a_record_on_a_full_disk_stops_the_run_with_one_sentence(
    script: str, tmp_path: Path, capfd: pytest.CaptureFixture[str], full_disk: FullDisk
) -> None:
    record = tmp_path / "r.jsonl"
    full_disk(100)  # the first record line is longer: cut short, then ENOSPC
    began = time.monotonic()
    code = capture("--dialect", "openai", "--script", script, "--record", str(record),
                   "--timeout", "60", "--", PY, "-c", FOREVER_AGENT)  # fmt: skip
    out, err = capfd.readouterr()
    assert code == 2
    assert time.monotonic() - began < 15  # stopped, not timed out
    assert err == (
        f"prefix-harness: error: the record file {record} cannot be written (No space left on"
        " device); 0 requests were recorded before; the command was ended\n"
    )
    assert "Traceback" not in out + err
    assert record.read_bytes() == b""  # the cut-short line was cut back, the file put in place
