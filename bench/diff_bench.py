"""Benchmark of ``prefix-harness diff`` on long histories.

Builds an OpenAI chat-completions parent and a fork (the parent plus a forked tail) of N
messages (~5 KB each on average, so 10,000 messages is ~50 MB a body), then prints, per size:

- ``diff``: the command end to end in process (read, parse, stream, locate, report);
- ``floor``: reading and ``orjson.loads`` of both bodies, which no diff can beat;
- ``deepdiff``: DeepDiff of the two parsed bodies (the naive structural alternative);
- peak memory of ``diff`` in a fresh process, against the two inputs' size.

and the ratios the targets are stated in: diff/floor (target <= 2), deepdiff/diff (target
>= 20), peak/inputs (target < 6) and time per size step (linear: ~10x per 10x messages).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import os
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

MESSAGE_TEXT = 7_500


def build_bodies(messages: int) -> tuple[bytes, bytes]:
    """A parent's last request of ``messages`` messages and its fork's first request."""
    filler = ("lorem ipsum dolor sit amet, consectetur adipiscing elit; " * 100)[:MESSAGE_TEXT]
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


def peak_rss(argv: list[str]) -> int:
    """Peak resident memory in bytes of a fresh process running ``argv``."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"{argv} exited {process.returncode}")
    return usage.ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--deepdiff-max", type=int, default=10_000, help="largest size to run DeepDiff on (slow)"
    )
    args = parser.parse_args()

    baseline = peak_rss([sys.executable, "-m", "harness", "--version"])
    print(f"interpreter + harness import, peak RSS: {baseline / 1e6:.0f} MB")
    header = f"{'messages':>9} {'body MB':>8} {'diff s':>8} {'floor s':>8} {'diff/floor':>10}"
    header += f" {'deepdiff s':>10} {'dd/diff':>8} {'peak MB':>8} {'peak/in':>8} {'(-base)':>8}"
    print(header)
    times: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory(prefix="prefix-bench-") as tmp:
        for size in args.sizes:
            parent_bytes, fork_bytes = build_bodies(size)
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
            )
    for (n0, t0), (n1, t1) in itertools.pairwise(times):
        print(f"scaling {n0:,} -> {n1:,} messages ({n1 / n0:.0f}x): time x{t1 / t0:.1f}")


if __name__ == "__main__":
    main()
