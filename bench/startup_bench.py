"""Start-up of ``prefix-harness``: ``--help`` and each command's ``--help``, whole process.

Each is timed as a fresh ``python -m harness ...`` process (least CPU time of N), against one that
only starts the interpreter and imports orjson (the floor no command can beat), and the
modules it loaded are read from ``python -X importtime``: the heavy ones (the generators, the
schemas, the checkers) must appear on no ``--help`` and not on ``diff``. Then ``rules`` and
``check-log`` run for real, which must load no generator and no schema validator. Last, the
default ``check`` as a whole process, and whether it loaded what it defers (DeepDiff,
workers, HTML).

    python3 bench/startup_bench.py [--repeats N]
"""

from __future__ import annotations

import argparse
import atexit
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("diff", "check", "capture", "check-log", "rules")
HEAVY = (
    "hypothesis",
    "jsonschema",
    "harness.capture",
    "harness.check",
    "harness.generation",
    "harness.strategies",
)
"""What ``diff`` and every ``--help`` must not import (a prefix of a module's name)."""
INTERPRETER = [sys.executable, "-c", "import orjson"]
DEFERRED = (
    "deepdiff",
    "numpy",
    "pydantic",
    "multiprocessing",
    "harness.reports._html",
    "harness.reports._html_check",
    "harness.reports._html_page",
    "harness.reports._html_timeline",
    "harness.reports._markdown",
    "harness.reports._rules_junit",
    "xml.etree",
)
"""What the default ``check`` must not import: it builds its evidence without DeepDiff, runs
no workers, and writes no page, summary or XML."""
GENERATORS = (
    "hypothesis",
    "harness.generation",
    "harness.strategies",
    "harness.check._run",
    "jsonschema",
    "referencing",
)
"""What ``rules`` and ``check-log`` must not import: they neither draw nor validate scenarios."""


def harness(*argv: str) -> list[str]:
    return [sys.executable, "-m", "harness", *argv]


@cache
def environment() -> dict[str, str]:
    """The environment of a timed process: bytecode is written and read, in a folder of its
    own (removed at exit), whatever ``PYTHONDONTWRITEBYTECODE`` says here, as for an installed
    package, whose modules are compiled once at install; otherwise every run would compile
    every module of the command from source and time that."""
    folder = tempfile.mkdtemp(prefix="prefix-bench-bytecode-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": folder}


def process_seconds(argv: Sequence[str], repeats: int) -> float:
    """The least CPU time (user + system) of ``argv`` as a fresh process, its output
    discarded, after one run that is not timed (it writes the bytecode). CPU time, not wall
    time: on a shared machine it is what others' load disturbs least."""
    best = float("inf")
    _run_quietly(argv)
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        _run_quietly(argv)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, spent)
    return best


def _run_quietly(argv: Sequence[str]) -> None:
    out = subprocess.DEVNULL
    subprocess.run(argv, cwd=ROOT, env=environment(), stdout=out, stderr=out, check=False)


def imported(argv: Sequence[str]) -> list[str]:
    """Every module ``argv`` (a ``python -m harness`` command line) imports, in order."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return [
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    ]


def heavy(modules: Sequence[str], names: Sequence[str] = HEAVY) -> list[str]:
    """The packages of ``names`` (the heavy ones by default) among ``modules``, each named
    once."""
    return sorted({h for h in names for m in modules if m == h or m.startswith(f"{h}.")})


def report(argvs: Sequence[Sequence[str]], repeats: int) -> None:
    """Print the start-up table for ``argvs``: time, ratio to the interpreter, modules."""
    floor = process_seconds(INTERPRETER, repeats)
    print(
        f"start-up (whole process, CPU ms, best of {repeats}); interpreter + orjson:"
        f" {floor * 1e3:.0f} ms"
    )
    print(f"  {'command':<34} {'ms':>6} {'/interp':>8} {'modules':>8}  heavy imports")
    for argv in argvs:
        seconds = process_seconds(argv, repeats)
        modules = imported(argv)
        shown = " ".join(argv[3:])
        found = ", ".join(heavy(modules)) or "none"
        print(
            f"  {shown:<34} {seconds * 1e3:>6.0f} {seconds / floor:>7.2f}x {len(modules):>8}"
            f"  {found}"
        )


def check_process(repeats: int) -> None:
    """Print the default ``check`` as a whole process (CPU time, best of ``repeats``) and what
    it loaded of ``DEFERRED``."""
    argv = harness("check", "--no-progress")
    seconds = process_seconds(argv, repeats)
    found = ", ".join(heavy(imported(argv), DEFERRED)) or "none"
    shown = "check (default, whole process)"
    print(f"  {shown:<34} {seconds * 1e3:>6.0f}  deferred loaded: {found}")


def judging_commands(repeats: int) -> None:
    """Print ``rules`` and ``check-log`` (a parent and its fork from examples/openai) as whole
    processes, and what they loaded of ``GENERATORS``."""
    log = Path(tempfile.mkdtemp(prefix="prefix-bench-log-")) / "requests.jsonl"
    atexit.register(shutil.rmtree, log.parent, ignore_errors=True)
    examples = ROOT / "examples" / "openai"
    bodies = (orjson.loads((examples / f).read_bytes()) for f in ("parent.json", "fork.json"))
    lines = (orjson.dumps({"path": "/v1/chat/completions", "body": b}) + b"\n" for b in bodies)
    log.write_bytes(b"".join(lines))
    commands = {
        "rules": harness("rules"),
        "rules byte-prefix": harness("rules", "byte-prefix"),
        "check-log LOG (a parent, its fork)": harness("check-log", str(log)),
    }
    for shown, argv in commands.items():
        seconds = process_seconds(argv, repeats)
        found = ", ".join(heavy(imported(argv), GENERATORS)) or "none"
        print(f"  {shown:<34} {seconds * 1e3:>6.0f}  generators or schemas loaded: {found}")


def help_commands() -> list[list[str]]:
    return [harness("--help"), *(harness(c, "--help") for c in COMMANDS)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per command (default: 5)")
    args = parser.parse_args(argv)
    report(help_commands(), args.repeats)
    judging_commands(args.repeats)
    check_process(args.repeats)


if __name__ == "__main__":
    main()
