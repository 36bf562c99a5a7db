"""Peak memory of ``prefix-harness check-log`` reading a large log.

Writes a JSON-lines log of OpenAI chat-completions requests in the minimal format (body as
text): conversations of growing histories, as an agent sends them, then one request with a
large user message, so that the largest record is far above the typical one and is read
when everything else is already kept. Then, each in a
fresh process, prints:

- ``read``: peak and retained memory (tracemalloc) of ``read_log`` alone, and the reading
  overhead (peak - retained) as a ratio to the largest record: the file is read a line at a
  time, so the overhead stays a multiple of the largest record, whatever the file's size;
- ``floor``: what ``orjson.loads`` of the largest line and of its body text take alone
  (orjson holds about 13 bytes per byte of a long string while it reads it), which the
  reading overhead cannot go below;
- ``check-log``: the peak resident set of the whole command, against the file's size.

What is kept of each request (its body as sent and its neutral request) grows with the
number of requests; messages repeated from request to request are kept once.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
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
import contextlib, io, resource, sys
from harness.cli import run
if sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()):
        code = run(sys.argv[1:])
    print("exit", code, file=sys.stderr)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
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
        # last, so that everything else is kept by the time it is read
        send([*history[:-1], Message("user", (Text("x" * large),))])
    return lines, largest


def max_rss(argv: list[str]) -> int:
    """The peak resident set of a fresh process running the command line ``argv`` in
    process (nothing: the imports alone), in bytes."""
    done = subprocess.run(
        [sys.executable, "-c", RSS_SCRIPT, *argv], check=False, capture_output=True, text=True
    )
    if done.returncode:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stderr}")
    return int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=200, help="log size in MB (default 200)")
    parser.add_argument(
        "--large", type=float, default=8, help="size of the largest record in MB (default 8)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "large.jsonl"
        lines, largest = write_log(path, int(args.size * 1e6), int(args.large * 1e6))
        size = path.stat().st_size
        print(f"log: {size / 1e6:,.1f} MB, {lines:,} lines, largest record {largest / 1e6:.1f} MB")
        done = subprocess.run(
            [sys.executable, "-c", READ_SCRIPT, str(path)],
            check=False,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            sys.exit(f"read_log failed:\n{done.stderr}")
        peak, current, ignored, parse = map(int, done.stdout.split())
        overhead = peak - current
        print(
            f"read:      peak {peak / 1e6:,.1f} MB, retained {current / 1e6:,.1f} MB "
            f"({lines - ignored:,} requests, {ignored} left out); reading overhead "
            f"{overhead / 1e6:,.1f} MB = {overhead / largest:.2f}x the largest record"
        )
        print(
            f"floor:     orjson.loads of the largest record and its body alone: "
            f"{parse / 1e6:,.1f} MB = {parse / largest:.2f}x the largest record "
            f"(the overhead is {overhead / parse:.2f}x this floor)"
        )
        floor = max_rss([])
        rss = max_rss(["check-log", str(path)])
        print(
            f"check-log: peak RSS {rss / 1e6:,.1f} MB ({(rss - floor) / 1e6:,.1f} MB above the "
            f"{floor / 1e6:,.1f} MB of the imports) = {(rss - floor) / size:.2f}x the log, "
            f"{(rss - floor) / largest:.1f}x the largest record"
        )


if __name__ == "__main__":
    main()
