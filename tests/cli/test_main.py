"""The entry point (harness/cli/_main.py): usage, and the exit code as the verdict whatever
became of the report — standard output closed, on a full disk or a pipe whose reader has
gone, standard input closed — each run as a real process, with no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness import __version__
from harness.cli import build_parser, run
from tests.cli.test_check_log import planted

ROOT = Path(__file__).parents[2]
OPENAI = ROOT / "examples" / "openai"
AGENT = ROOT / "examples" / "fork-agent"
HARNESS = [sys.executable, "-m", "harness"]
LOST = "prefix-harness: error: the report could not be written to stdout"


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run([]) == 2
    assert "diff" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run(["--version"])
    assert exited.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_unknown_command_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run(["frobnicate"])
    assert exited.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


COMMAND_LINES = [
    ["diff", "--help"],
    ["diff", "a.json"],
    ["diff", "a.json", "b.json", "--context", "x"],
    ["check", "--help"],
    ["check", "--jobs", "0x"],
    ["check", "--examples", "3", "--no-progress", "--bogus"],
    ["capture", "--help"],
    ["check-log", "--help"],
    ["rules", "--help"],
    ["rules", "--format", "nope"],
]


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=" ".join)
def test_a_command_parser_built_alone_parses_as_the_whole_one(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``run`` builds only the named command's parser: its help, its usage errors and what it
    parses are those of the parser that holds every command."""
    results = []
    for only in (None, argv[0]):
        parser = build_parser(only)
        try:
            parsed = vars(parser.parse_args(argv))
            parsed.pop("run", None)
            code: object = parsed
        except SystemExit as e:
            code = e.code
        out, err = capsys.readouterr()
        results.append((code, out, err))
    assert results[0] == results[1]
    assert results[0][1] or results[0][2] or isinstance(results[0][0], dict)


def test_only_the_named_command_is_built() -> None:
    commands = build_parser("diff")._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(commands) == ["diff"]
    everything = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(everything) == ["check", "diff", "capture", "check-log", "rules"]


def test_an_error_sentence_escapes_control_characters(capsys: pytest.CaptureFixture[str]) -> None:
    name = "\x1b]0;pwned\x07\x1b[2K\r.json"
    assert run(["diff", name, str(OPENAI / "fork.json")]) == 2
    err = capsys.readouterr().err
    assert err == "prefix-harness: error: \\x1b]0;pwned\\x07\\x1b[2K\\r.json: no such file\n"


# --- real processes: what the output goes to ---------------------------------------------------


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A record of the example fork agent, captured with every stream as usual (exit 0)."""
    path = tmp_path_factory.mktemp("capture") / "agent.jsonl"
    command = [*HARNESS, "capture", "--dialect", "openai", "--script", str(AGENT / "script.json")]
    command += ["--record", str(path), "--", sys.executable, str(AGENT / "agent.py")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return path


def _closed() -> Iterator[dict[str, object]]:
    yield {"preexec_fn": lambda: os.close(1)}


def _full() -> Iterator[dict[str, object]]:
    with open("/dev/full", "wb") as full:
        yield {"stdout": full}


def _reader_gone() -> Iterator[dict[str, object]]:
    read, write = os.pipe()
    os.close(read)  # every write gets EPIPE, as after `| head -1` has read its line
    try:
        yield {"stdout": write}
    finally:
        os.close(write)


OUTPUTS: dict[str, Callable[[], Iterator[dict[str, object]]]] = {
    "closed": _closed,
    "full": _full,
    "broken-pipe": _reader_gone,
}

COMMANDS: dict[str, tuple[list[str], int]] = {
    "diff-broken": (["diff", str(OPENAI / "parent.json"), str(OPENAI / "fork-broken.json")], 1),
    "diff-kept": (["diff", str(OPENAI / "parent.json"), str(OPENAI / "fork.json")], 0),
    "diff-json": (["diff", "--json", str(OPENAI / "parent.json"), str(OPENAI / "fork.json")], 0),
    "rules": (["rules"], 0),
    "rules-one": (["rules", "byte-prefix"], 0),
    "help": (["--help"], 0),
    "check": (["check", "--examples", "0", "--dialect", "openai"], 0),
    "check-failing": (  # anthropic: no real token count to load, the same exit and output
        [
            *("check", "--subject", "python:tests.cli.check_subjects:tool_order"),
            *("--examples", "0", "--dialect", "anthropic"),
            *("--fixtures", str(ROOT / "fixtures" / "oneshot.json")),
        ],
        1,
    ),
    "check-log": (["check-log", "{record}"], 0),
    "check-log-failing": (["check-log", "{planted}"], 1),
    "capture": (
        [
            *("capture", "--json", "--dialect", "openai", "--script", str(AGENT / "script.json")),
            *("--record", "{tmp}/again.jsonl", "--", sys.executable, str(AGENT / "agent.py")),
        ],
        0,
    ),
}


def _run(argv: list[str], **streams: object) -> subprocess.CompletedProcess[str]:
    options: dict[str, object] = {"stderr": subprocess.PIPE, "cwd": ROOT, "timeout": 120}
    options.update(streams)
    return subprocess.run([*HARNESS, *argv], text=True, **options)  # type: ignore[call-overload, no-any-return]


@contextmanager
def _output(kind: str) -> Iterator[dict[str, object]]:
    streams = OUTPUTS[kind]()
    try:
        yield next(streams)
    finally:
        streams.close()


CASES = [
    (name, kind)
    for name, (_, verdict) in COMMANDS.items()
    for kind in OUTPUTS
    if verdict != 0 or kind != "broken-pipe"  # exit 0 on a broken pipe is the verdict, by luck
]


@pytest.mark.parametrize(("name", "kind"), CASES)
def test_the_exit_code_is_the_verdict_whatever_became_of_stdout(
    name: str, kind: str, record: Path, tmp_path: Path
) -> None:
    argv, verdict = COMMANDS[name]
    argv = [a.format(record=record, tmp=tmp_path, planted=planted(tmp_path)) for a in argv]
    with _output(kind) as streams:
        done = _run(argv, **streams)
    assert done.returncode == verdict, done.stderr
    assert "Traceback" not in done.stderr
    assert "Exception ignored" not in done.stderr
    ours = [line for line in done.stderr.splitlines() if line.startswith("prefix-harness:")]
    if kind == "broken-pipe":
        assert ours == []  # the reader stopped reading on purpose: nothing to say
    else:
        assert len(ours) == 1, done.stderr
        why = "stdout is closed" if kind == "closed" else "No space left on device"
        assert ours[0] == f"{LOST} ({why}); the exit code is still the verdict"


def test_a_broken_prefix_piped_into_a_reader_that_left_still_exits_1() -> None:
    # the shell's own pipeline, its reader gone before the report is written (as `head -1` is
    # once it has its line): the pipeline's status of prefix-harness is still the verdict
    diff = [*HARNESS, "diff", str(OPENAI / "parent.json"), str(OPENAI / "fork-broken.json")]
    script = f'{" ".join(diff)} | (exec 0<&-; exit 0); echo "status=${{PIPESTATUS[0]}}"'
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.stdout == "status=1\n", done.stderr
    assert done.stderr == ""


def test_closed_stdout_and_stderr_still_give_the_verdict() -> None:
    argv, verdict = COMMANDS["diff-kept"]
    done = _run(argv, stderr=subprocess.DEVNULL, preexec_fn=lambda: (os.close(1), os.close(2)))
    assert done.returncode == verdict


def test_an_error_on_a_full_stderr_is_no_traceback() -> None:
    with open("/dev/full", "wb") as full:
        done = _run(["diff", str(OPENAI / "parent.json"), "missing.json"], stderr=full)
    assert done.returncode == 2


# --- real processes: standard input --------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "body", "verdict"),
    [
        (["diff", "-", str(OPENAI / "fork.json")], OPENAI / "parent.json", 0),
        (["diff", str(OPENAI / "parent.json"), "-"], OPENAI / "fork-broken.json", 1),
    ],
)
def test_closed_stdin_for_a_body_read_from_it_is_bad_input(
    argv: list[str], body: Path, verdict: int
) -> None:
    done = _run(argv, stdout=subprocess.PIPE, preexec_fn=lambda: os.close(0))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "prefix-harness: error: cannot read from stdin (-): stdin is closed\n"
    # the same command with the body on stdin reads it
    opened = subprocess.run([*HARNESS, *argv], input=body.read_bytes(), capture_output=True)
    assert opened.returncode == verdict, opened.stderr


# --- a signal whose exception a library replaces -------------------------------------------------


def test_an_error_raised_over_a_signal_s_exception_is_still_the_signal_s_end() -> None:
    """A signal lands in a library's code whose clean-up then fails (Hypothesis asserts on a
    run the signal cut short before its engine was built): the error that comes out holds the
    signal's ``Interrupted`` as its context, and the run ends as that signal ends it."""
    code = (
        "import os, signal, sys, time\n"
        "from harness.cli import _main\n"
        "def dispatch(argv):\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGHUP); time.sleep(10)\n"
        "    except KeyboardInterrupt:\n"
        "        assert False, 'a clean-up that fails as the signal passes'\n"
        "_main._dispatch = dispatch\n"
        "sys.exit(_main.run([]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert (done.returncode, done.stderr) == (129, "prefix-harness: error: interrupted by SIGHUP\n")


def test_an_error_with_no_signal_behind_it_is_not_taken_for_one() -> None:
    code = (
        "import sys\n"
        "from harness.cli import _main\n"
        "def dispatch(argv):\n"
        "    try:\n"
        "        raise ValueError('not a signal')\n"
        "    except ValueError:\n"
        "        raise RuntimeError('the harness failed')\n"
        "_main._dispatch = dispatch\n"
        "sys.exit(_main.run([]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 1
    assert "RuntimeError: the harness failed" in done.stderr
