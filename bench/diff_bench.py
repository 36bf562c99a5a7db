"""Benchmark of ``prefix-harness diff`` on long histories.

Builds an OpenAI chat-completions parent and a fork (the parent plus a forked tail) of N
messages (~5 KB each on average, so 10,000 messages is ~50 MB a body), then prints, per size:

- ``diff``: the command end to end in process (read, parse, stream, locate, report);
- ``floor``: reading and ``orjson.loads`` of both bodies, which no diff can beat;
- ``deepdiff``: DeepDiff of the two parsed bodies (the naive structural alternative);
- peak memory of ``diff`` in a fresh process, against the two inputs' size, and the peak
  memory of the parse floor alone (Python objects of small JSON values cost more than their
  bytes, whatever reads them).

and the ratios the targets are stated in: diff/floor (target <= 2), deepdiff/diff (target
>= 20), peak/inputs (target < 6) and time per size step (linear: ~10x per 10x messages).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from harness.cli import run

MESSAGE_TEXT = 7_400
FLOOR_SCRIPT = "import sys, orjson; [orjson.loads(open(p, 'rb').read()) for p in sys.argv[1:]]"


def build_bodies(messages: int) -> tuple[bytes, bytes]:
    """A parent's last request of ``messages`` messages and its fork's first request."""
    filler = ("lorem ipsum dolor sit amet, consectetur adipiscing elit; " * 200)[:MESSAGE_TEXT]
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for i in range(messages - 1):
        if i % 3 == 0:
            history.append({"role": "user", "content": f"step {i}: {filler}"})
        elif i % 3 == 1:
            call = {"command": f"grep -rn step{i} .", "timeout": 30}
            history.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {
                                "name": "run_shell",
                                "arguments": orjson.dumps(call).decode(),
                            },
                        }
                    ],
                }
            )
        else:
            history.append({"role": "tool", "tool_call_id": f"call_{i - 1}", "content": filler})
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{t}",
                "description": "A tool. " * 20,
                "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}},
            },
        }
        for t in range(20)
    ]
    parent = {"model": "gpt-4.1", "temperature": 0.2, "messages": history, "tools": tools}
    fork_tail = [
        {"role": "assistant", "content": "Forking.", "tool_calls": []},
        {"role": "user", "content": "<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: go"},
    ]
    fork = {**parent, "messages": history + fork_tail}
    return orjson.dumps(parent), orjson.dumps(fork)


def build_structured_bodies(messages: int) -> tuple[bytes, bytes]:
    """The same, as Anthropic messages whose tool calls and results are nested objects.

    Bytes per message are alike, but each message holds ~100 small JSON values instead of one
    long string: what a structural differ pays for, per value, and a byte comparison does not.
    """
    history: list[dict[str, Any]] = []
    for i in range(messages):
        if i % 2 == 0:
            rows = [
                {"path": f"src/module_{i}_{r}.py", "line": r, "match": f"step{i} = compute({r})"}
                for r in range(28)
            ]
            content: Any = (
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{i - 1}",
                        "content": orjson.dumps(rows).decode(),
                    }
                ]
                if i
                else "Find every use of compute()."
            )
            if i:
                content.append({"type": "text", "text": f"Results of step {i}, as JSON objects:"})
                content[0]["content"] = [{"type": "text", "text": str(row)} for row in rows]
            history.append({"role": "user", "content": content})
        else:
            query = {
                "pattern": f"step{i}",
                "paths": [f"src/pkg_{k}" for k in range(12)],
                "options": {"context": 2, "case": True, "max": 50, "glob": ["*.py", "*.pyi"]},
                "filters": [{"field": f"f{k}", "op": "eq", "value": k} for k in range(10)],
            }
            history.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"Searching for step {i}."},
                        {"type": "tool_use", "id": f"toolu_{i}", "name": "search", "input": query},
                    ],
                }
            )
    tools = [
        {"name": f"tool_{t}", "description": "A tool. " * 20, "input_schema": {"type": "object"}}
        for t in range(20)
    ]
    parent = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": "You are a coding agent."}
    parent |= {"tools": tools, "messages": history}
    fork_tail = [
        {"role": "assistant", "content": "Forking."},
        {"role": "user", "content": "<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: go"},
    ]
    fork = {**parent, "messages": history + fork_tail}
    return orjson.dumps(parent), orjson.dumps(fork)


def best_of(repeats: int, action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def diff_in_process(parent: Path, fork: Path) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = run(["diff", str(parent), str(fork), "--max-body-size", "4G"])
    if code != 0:
        raise SystemExit(f"diff exited {code}; the benchmark's fork should keep the prefix")


def parse_floor(parent: Path, fork: Path) -> None:
    orjson.loads(parent.read_bytes())
    orjson.loads(fork.read_bytes())


_MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def peak_rss(argv: list[str]) -> int:
    """Peak resident memory in bytes of a fresh process running ``argv``.

    Linux counts the memory of the process a child was forked from in the child's peak
    until it execs, so the child is forked by a small measuring process, not by this
    benchmark, which holds the parsed bodies.
    """
    done = subprocess.run([sys.executable, "-c", _MEASURE, *argv], capture_output=True, check=True)
    code, peak = (int(x) for x in done.stdout.split())
    if code not in (0, 1):
        raise SystemExit(f"{argv} exited {code}")
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--shape",
        choices=["text", "structured"],
        default="text",
        help="long text messages (OpenAI) or nested tool calls and results (Anthropic)",
    )
    parser.add_argument(
        "--deepdiff-max", type=int, default=10_000, help="largest size to run DeepDiff on (slow)"
    )
    args = parser.parse_args()

    baseline = peak_rss([sys.executable, "-m", "harness", "--version"])
    print(f"interpreter + harness import, peak RSS: {baseline / 1e6:.0f} MB")
    header = f"{'messages':>9} {'body MB':>8} {'diff s':>8} {'floor s':>8} {'diff/floor':>10}"
    header += f" {'deepdiff s':>10} {'dd/diff':>8} {'peak MB':>8} {'peak/in':>8} {'(-base)':>8}"
    header += f" {'floor MB':>8}"
    print(header)
    times: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory(prefix="prefix-bench-") as tmp:
        for size in args.sizes:
            build = build_bodies if args.shape == "text" else build_structured_bodies
            parent_bytes, fork_bytes = build(size)
            parent, fork = Path(tmp, "parent.json"), Path(tmp, "fork.json")
            parent.write_bytes(parent_bytes)
            fork.write_bytes(fork_bytes)
            inputs = len(parent_bytes) + len(fork_bytes)
            del parent_bytes, fork_bytes

            diff_s = best_of(args.repeats, partial(diff_in_process, parent, fork))
            floor_s = best_of(args.repeats, partial(parse_floor, parent, fork))
            deep = "skipped"
            ratio = "-"
            if size <= args.deepdiff_max:
                from deepdiff import DeepDiff

                a, b = orjson.loads(parent.read_bytes()), orjson.loads(fork.read_bytes())
                deep_s = best_of(1, partial(DeepDiff, a, b))
                del a, b
                deep, ratio = f"{deep_s:.2f}", f"{deep_s / diff_s:.0f}x"
            floor_peak = peak_rss(
                [
                    sys.executable,
                    "-c",
                    FLOOR_SCRIPT,
                    str(parent),
                    str(fork),
                ]
            )
            peak = peak_rss(
                [
                    sys.executable,
                    "-m",
                    "harness",
                    "diff",
                    str(parent),
                    str(fork),
                    "--max-body-size",
                    "4G",
                ]
            )
            times.append((size, diff_s))
            print(
                f"{size:>9,} {len(parent.read_bytes()) / 1e6:>8.1f} {diff_s:>8.3f} {floor_s:>8.3f}"
                f" {diff_s / floor_s:>9.2f}x {deep:>10} {ratio:>8} {peak / 1e6:>8.0f}"
                f" {peak / inputs:>7.2f}x {(peak - baseline) / inputs:>7.2f}x"
                f" {floor_peak / 1e6:>8.0f}"
            )
    for (n0, t0), (n1, t1) in itertools.pairwise(times):
        print(f"scaling {n0:,} -> {n1:,} messages ({n1 / n0:.0f}x): time x{t1 / t0:.1f}")


if __name__ == "__main__":
    main()
