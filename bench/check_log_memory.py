"""Peak memory of ``prefix-harness check-log`` over logs of growing size.

Writes JSON-lines logs of OpenAI chat-completions requests in the minimal format (body as
text): conversations of growing histories, as an agent sends them, then one request with a
large user message, so that the largest record is far above the typical one and is read
when everything else is already read. Every log has the same largest record; only the
number of requests grows. For each size, each in a fresh process, it prints:

- ``read``: peak and retained memory (tracemalloc) of ``read_log`` alone: what it retains
  is the index (a small entry per request, bodies and neutral requests are read back from
  the file when needed), said per request; the peak is a multiple of the largest record;
- ``floor``: what ``orjson.loads`` of the largest line and of its body text take alone
  (orjson holds about 13 bytes per byte of a long string while it reads it);
- ``check-log``: the peak resident set of the whole command above that of its imports, as a
  multiple of the largest record and of the file's size, and its wall time; with
  ``--against DIR`` (a checkout of another version), the same for that version and the
  ratio of the two times.

The target: the peak does not grow with the file's size (a small multiple of the largest
record plus the index). Timings are wall time of one run: noisy on a loaded machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from harness.dialects import get_dialect
from harness.model import Message, Preset, Request, Text, Tool, freeze

READ_SCRIPT = """
import sys, tracemalloc, orjson
from harness.capture import read_log
tracemalloc.start()
used, ignored = read_log(sys.argv[1])
current, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
del used
with open(sys.argv[1], "rb") as f:
    for line in f:
        pass  # the last line is the largest
tracemalloc.start()
orjson.loads(orjson.loads(line)["body"])
floor = tracemalloc.get_traced_memory()[1]
print(peak, current, len(ignored), floor)
"""
RSS_SCRIPT = """
import contextlib, io, resource, sys, time
from harness.cli import run
start = time.perf_counter()
if sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = run(sys.argv[1:])
    tail = [line for line in out.getvalue().splitlines() if line.startswith("check ")]
    print(code, (tail or ["-"])[-1].split(":")[0], file=sys.stderr)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def write_log(path: Path, size: int, large: int) -> tuple[int, int]:
    """Write a log of about ``size`` bytes with one record of about ``large`` bytes; the
    number of lines and the largest line's size."""
    render = get_dialect("openai").render
    preset = Preset(
        system=("You are a careful coding agent.",),
        tools=(Tool("read_file", "Read a file.", freeze({"type": "object", "properties": {}})),),
    )
    written = lines = largest = 0
    conversation = 0
    with path.open("wb") as out:

        def send(history: list[Message]) -> None:
            nonlocal written, lines, largest
            body = render(Request(preset, tuple(history))).decode()
            line = orjson.dumps({"body": body, "dialect": "openai"}) + b"\n"
            out.write(line)
            written += len(line)
            lines += 1
            largest = max(largest, len(line))

        while written < size:
            conversation += 1
            history = [Message("user", (Text(f"Task {conversation}: tidy up the repository."),))]
            for turn in range(30):
                history.append(Message("model", (Text(f"Step {turn}. " + "lorem ipsum " * 40),)))
                history.append(Message("user", (Text(f"Go on ({turn})."),)))
                send(history)
                if written >= size:
                    break
        # last, so that everything else is read by the time it is
        send([*history[:-1], Message("user", (Text("x" * large),))])
    return lines, largest


def run_command(argv: list[str], tree: Path | None = None) -> tuple[float, int]:
    """The wall time and peak resident set (bytes) of a fresh process running the command
    line ``argv`` in process (nothing: the imports alone), with ``tree`` first on the
    module path when given (another version of the project)."""
    seconds, rss, _ = run_verdict(argv, tree)
    return seconds, rss


def run_verdict(
    argv: list[str], tree: Path | None = None, timeout: float | None = None
) -> tuple[float, int, str]:
    """``run_command`` and the ``exit-code verdict`` of the run (empty for the imports
    alone); ``subprocess.TimeoutExpired`` past ``timeout`` seconds."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", RSS_SCRIPT, *argv],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
        timeout=timeout,
    )
    if done.returncode:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stderr}")
    seconds, rss = done.stdout.split()[-2:]
    verdict = done.stderr.strip().splitlines()[-1] if argv else ""
    return float(seconds), int(rss), verdict


def measure(path: Path, lines: int, largest: int, against: Path | None) -> None:
    """Print the figures of one log (see the module docstring)."""
    size = path.stat().st_size
    print(f"log: {size / 1e6:,.1f} MB, {lines:,} lines, largest record {largest / 1e6:.1f} MB")
    done = subprocess.run(
        [sys.executable, "-c", READ_SCRIPT, str(path)], check=False, capture_output=True, text=True
    )
    if done.returncode:
        sys.exit(f"read_log failed:\n{done.stderr}")
    peak, current, ignored, parse = map(int, done.stdout.split())
    requests = lines - ignored
    print(
        f"  read:      peak {peak / 1e6:,.1f} MB = {peak / largest:.2f}x the largest record; "
        f"retained {current / 1e6:,.1f} MB, the index and the last requests read, the largest "
        f"among them ({current / requests:,.0f} bytes per request over {requests:,} requests, "
        f"{ignored} left out)"
    )
    print(
        f"  floor:     orjson.loads of the largest record and its body alone: "
        f"{parse / 1e6:,.1f} MB = {parse / largest:.2f}x the largest record"
    )
    versions = [("check-log", None)] + ([("before", against)] if against else [])
    times = []
    for name, tree in versions:
        _, floor = run_command([], tree)
        seconds, rss = run_command(["check-log", str(path)], tree)
        times.append(seconds)
        above = rss - floor
        print(
            f"  {name + ':':<10} peak RSS {rss / 1e6:,.1f} MB ({above / 1e6:,.1f} MB above the "
            f"{floor / 1e6:,.1f} MB of the imports) = {above / largest:.1f}x the largest record, "
            f"{above / size:.2f}x the log; {seconds:,.1f} s"
        )
    if against:
        print(f"  time:      this version takes {times[0] / times[1]:.2f}x the time of the other")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="50,200",
        help="comma-separated log sizes in MB, each measured in turn (default 50,200)",
    )
    parser.add_argument(
        "--large", type=float, default=8, help="size of the largest record in MB (default 8)"
    )
    parser.add_argument(
        "--against",
        metavar="DIR",
        type=Path,
        help="a checkout of another version (git worktree) to measure the same way",
    )
    args = parser.parse_args()
    sizes = [float(s) for s in args.sizes.split(",") if s.strip()]
    for mb in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "large.jsonl"
            started = time.perf_counter()
            lines, largest = write_log(path, int(mb * 1e6), int(args.large * 1e6))
            print(f"(written in {time.perf_counter() - started:,.0f} s)")
            measure(path, lines, largest, args.against)


if __name__ == "__main__":
    main()
