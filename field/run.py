#!/usr/bin/env python3
"""The field suite: real agent programs from the npm registry, run under ``prefix-harness
capture`` against the scripted fake provider, each verdict compared with what a careful
human found by hand (docs/field.md).

    python3 field/run.py                 # every program
    python3 field/run.py qwen-code       # some
    python3 field/run.py --ci            # the programs marked ci = true

Each program folder holds ``program.toml`` (the pinned npm package, how it runs headless,
its environment, the settings files of its HOME and the files of its work folder; a run
may override the command, the prompt and the dialect), ``scripts/NAME.json`` (capture
scripts driving its fork, siblings, spawn and recursion) and ``expect/NAME.toml`` (the
known failures of that run, each with its reason). The pinned version is installed once
into the cache folder (``PREFIX_HARNESS_FIELD_CACHE``, default
``~/.cache/prefix-harness-field``); every run gets a fresh throwaway HOME and work folder
and runs inside a private network namespace that has loopback alone (``unshare -n``), so
nothing but the fake provider can be reached. Records go to
``field/.runs/PROGRAM/NAME.jsonl``; nothing of the programs is committed.

Exit 0 when every run ends with its expected exit code, 1 when one does not, 2 when the
suite cannot run (no npm, no unshare, an install that fails).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RUNS = HERE / ".runs"
CACHE = Path(os.environ.get("PREFIX_HARNESS_FIELD_CACHE", "~/.cache/prefix-harness-field"))


@dataclass(frozen=True)
class Run:
    name: str
    script: Path
    expect: Path | None
    exit: int
    args: tuple[str, ...]
    prompt: str | None
    command: tuple[str, ...] | None
    dialect: str | None


@dataclass(frozen=True)
class Program:
    name: str
    folder: Path
    npm: str
    version: str
    dialect: str
    command: tuple[str, ...]
    prompt: str
    env: dict[str, str]
    files: dict[str, str]
    work: dict[str, str]
    git: bool
    args: tuple[str, ...]
    timeout: int
    ci: bool
    runs: tuple[Run, ...]

    @property
    def prefix(self) -> Path:
        return CACHE.expanduser() / f"{self.name}-{self.version}"


def load(folder: Path) -> Program:
    """A program folder's ``program.toml`` and its runs."""
    data: dict[str, Any] = tomllib.loads((folder / "program.toml").read_text())
    runs = []
    for entry in data.get("run", []):
        name = entry["name"]
        expect = folder / "expect" / f"{name}.toml"
        runs.append(
            Run(
                name,
                folder / "scripts" / f"{entry.get('script', name)}.json",
                expect if expect.exists() else None,
                int(entry.get("exit", 0)),
                tuple(entry.get("args", ())),
                entry.get("prompt"),
                tuple(entry["command"]) if "command" in entry else None,
                entry.get("dialect"),
            )
        )
    return Program(
        name=data["name"],
        folder=folder,
        npm=data["npm"],
        version=data["version"],
        dialect=data["dialect"],
        command=tuple(data["command"]),
        prompt=data["prompt"],
        env={k: str(v) for k, v in data.get("env", {}).items()},
        files=dict(data.get("files", {})),
        work=dict(data.get("work", {})),
        git=bool(data.get("git", False)),
        args=tuple(data.get("args", ())),
        timeout=int(data.get("timeout", 150)),
        ci=bool(data.get("ci", False)),
        runs=tuple(runs),
    )


def install(program: Program) -> str | None:
    """Install the pinned version into the cache (once); why not, on failure."""
    marker = program.prefix / ".installed"
    if marker.exists():
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    program.prefix.mkdir(parents=True, exist_ok=True)
    spec = f"{program.npm}@{program.version}"
    print(f"installing {spec} into {program.prefix} ...", flush=True)
    started = time.monotonic()
    done = subprocess.run(
        [npm, "install", "--prefix", str(program.prefix), "--no-audit", "--no-fund", spec],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        return f"npm install {spec} failed (exit {done.returncode}):\n{tail}"
    marker.write_text(spec + "\n")
    print(f"installed {spec} in {time.monotonic() - started:.1f} s", flush=True)
    return None


def capture(program: Program, run: Run) -> tuple[int, str, float]:
    """Run one capture; its exit code, verdict lines and wall-clock seconds."""
    home = Path(tempfile.mkdtemp(prefix=f"field-{program.name}-home-"))
    work = Path(tempfile.mkdtemp(prefix=f"field-{program.name}-work-"))
    try:
        for relative, text in program.files.items():
            path = home / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        (work / "README.md").write_text("# demo\n\nA small project for the field suite.\n")
        for relative, text in program.work.items():
            (work / relative).write_text(text)
        if program.git:
            subprocess.run(["git", "init", "-q", str(work)], check=True)
        record = RUNS / program.name / f"{run.name}.jsonl"
        record.parent.mkdir(parents=True, exist_ok=True)
        values = {
            "prefix": str(program.prefix),
            "prompt": run.prompt or program.prompt,
            "home": str(home),
        }
        command = [part.format(**values) for part in run.command or program.command]
        harness = [
            "prefix-harness", "capture", "--dialect", run.dialect or program.dialect,
            "--script", str(run.script), "--record", str(record),
            "--timeout", str(program.timeout), "--subject", program.name,
            *program.args, *run.args,
            *(["--expect", str(run.expect)] if run.expect else []),
            "--", *command,
        ]  # fmt: skip
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            **{k: v.format(**values) for k, v in program.env.items()},
        }
        isolated = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *harness]
        started = time.monotonic()
        done = subprocess.run(
            isolated, cwd=work, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        seconds = time.monotonic() - started
        output = RUNS / program.name / f"{run.name}.out"
        output.write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
        lines = done.stdout.splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("checked: ")), None)
        if start is not None:
            verdict = "\n".join(lines[start:])
        else:
            verdict = (done.stderr.strip().splitlines() or ["(no verdict)"])[-1]
        return done.returncode, verdict, seconds
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("programs", nargs="*", help="program folders to run (default: all)")
    parser.add_argument("--ci", action="store_true", help="only the programs marked ci = true")
    parser.add_argument("--list", action="store_true", help="list the programs and runs")
    args = parser.parse_args(argv)
    folders = sorted(p.parent for p in HERE.glob("*/program.toml"))
    programs = [load(f) for f in folders]
    if args.programs:
        unknown = set(args.programs) - {p.name for p in programs}
        if unknown:
            print(f"field: unknown program(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        programs = [p for p in programs if p.name in args.programs]
    if args.ci:
        programs = [p for p in programs if p.ci]
    if not any(p.runs for p in programs):
        print("field: no run to make: nothing would be checked", file=sys.stderr)
        return 2
    if args.list:
        for p in programs:
            print(
                f"{p.name} {p.npm}@{p.version} ({p.dialect}): {', '.join(r.name for r in p.runs)}"
            )
        return 0
    if shutil.which("unshare") is None:
        print("field: unshare is needed to keep the programs off the network", file=sys.stderr)
        return 2
    mismatches = 0
    for program in programs:
        why = install(program)
        if why is not None:
            print(f"field: {program.name}: {why}", file=sys.stderr)
            return 2
        for run in program.runs:
            code, verdict, seconds = capture(program, run)
            ok = code == run.exit
            mismatches += not ok
            mark = "ok  " if ok else "FAIL"
            print(
                f"{mark} {program.name:<12} {run.name:<20} exit {code} (expected {run.exit}),"
                f" {seconds:.1f} s"
            )
            print("\n".join(f"       {line}" for line in verdict.splitlines()), flush=True)
            if not ok:
                print(f"       see {RUNS / program.name / (run.name + '.out')}")
    total = sum(len(p.runs) for p in programs)
    print(f"field: {total - mismatches} of {total} runs as expected")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
