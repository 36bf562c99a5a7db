"""Time and peak memory of ``prefix-harness check-log`` as the number of requests grows.

Writes JSON-lines logs of OpenAI chat-completions requests in the minimal format (body as
text, as ``bench/check_log_memory.py`` does) in the shapes that cost the most per request:

- ``identical``: one request sent again and again (a retried or polled request);
- ``interleaved``: many independent agents' conversations of three turns (each turn reads a
  file), their turns interleaved;
- ``long``: one conversation, one request a turn, each the previous plus two messages;
- ``forks``: a parent whose every turn forks children (each with one follow-up).

For each shape and each size (a fresh process each), it prints the wall time, the time per
request and per MB of the log, the peak resident set above that of the imports, and the
ratio of each figure to the size before it. The target: linear in the log, so the time per
request does not grow with the number of requests where the log grows with it (identical,
interleaved: about x10 the time for x10 the requests), and the time per MB does not grow
where every body grows too (long, forks: the log itself grows with the square of the
turns); the peak grows no faster than the largest record (one request's bodies and the few
it is compared with) plus a small index entry a request. The check's exit code and verdict
are printed too (each shape must be judged the same at every size). Wall time of one run:
noisy on a loaded machine.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson
from check_log_memory import run_verdict

from harness.dialects import get_dialect
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Text,
    Tool,
    freeze,
)

TAG = "<fork-boilerplate>"
PRESET = Preset(
    system=("You are a careful coding agent.",),
    tools=(
        Tool("read_file", "Read a file.", freeze({"type": "object", "properties": {}})),
        Tool("fork", "Fork a worker.", freeze({"type": "object", "properties": {}})),
    ),
)

Writer = Callable[[Callable[[Sequence[Message]], None], int], None]


def _user(text: str) -> Message:
    return Message("user", (Text(text),))


def _model(text: str) -> Message:
    return Message("model", (Text(text),))


def identical(send: Callable[[Sequence[Message]], None], n: int) -> None:
    """The same request ``n`` times."""
    history = [_user("Is the build green yet? Answer yes or no.")]
    for _ in range(n):
        send(history)


def interleaved(send: Callable[[Sequence[Message]], None], n: int) -> None:
    """Agents' conversations of three turns, started in batches of 50 whose turns
    interleave; each model turn reads a file (a call, and its result)."""
    sent = 0
    batch = 0
    while sent < n:
        histories = [[_user(f"Task {batch}-{k}: summarize file {k}.")] for k in range(50)]
        for turn in range(3):
            for k, history in enumerate(histories):
                if sent == n:
                    return
                if turn:
                    i = f"call_{batch}_{k}_{turn}"
                    path = freeze({"path": f"src/module_{batch}/file_{k}_{turn}.py"})
                    history += [
                        Message("model", (FunctionCall("read_file", path, i),)),
                        Message("user", (FunctionResponse("read_file", "contents", i),)),
                    ]
                send(history)
                sent += 1
        batch += 1


def long(send: Callable[[Sequence[Message]], None], n: int) -> None:
    """One conversation of ``n`` turns."""
    history = [_user("Refactor the parser, one step at a time.")]
    for turn in range(n):
        if turn:
            history += [_model(f"Step {turn} done."), _user(f"Next ({turn}).")]
        send(history)


def forks(send: Callable[[Sequence[Message]], None], n: int) -> None:
    """A parent whose every turn forks four children, each sending a first request and a
    follow-up; the parent's next turn carries the calls' results. Whole turns only (about
    ``n`` requests, never more): the parent's last request forks nothing."""
    history = [_user("Audit the repository; fork a worker per directory.")]
    sent, turn = 1, 0
    while sent + 9 <= n:
        send(history)
        ids = [f"call_{turn}_{k}" for k in range(4)]
        directives = [f"Audit directory {turn}-{k} and report." for k in range(4)]
        called = Message(
            "model",
            tuple(
                FunctionCall("fork", freeze({"prompt": d}), i)
                for d, i in zip(directives, ids, strict=True)
            ),
        )
        answered = [Message("user", (FunctionResponse("fork", "worker started", i),)) for i in ids]
        for k, directive in enumerate(directives):
            child = [*history, called, *answered, _user(f"{TAG} {directive}")]
            send(child)
            send([*child, _model(f"Directory {turn}-{k} is clean."), _user("Anything else?")])
        history = [*history, called, *answered]
        sent += 9
        turn += 1
    send(history)


SHAPES: dict[str, Writer] = {
    "identical": identical,
    "interleaved": interleaved,
    "long": long,
    "forks": forks,
}


def write_log(path: Path, shape: str, n: int) -> int:
    """Write about ``n`` requests of ``shape`` to ``path``; how many were written."""
    render = get_dialect("openai").render
    lines = 0
    with path.open("wb") as out:

        def send(history: Sequence[Message]) -> None:
            nonlocal lines
            body = render(Request(PRESET, tuple(history))).decode()
            out.write(orjson.dumps({"body": body, "dialect": "openai"}) + b"\n")
            lines += 1

        SHAPES[shape](send, n)
    return lines


def run(argv: list[str], timeout: float) -> tuple[float, int, str] | None:
    """Wall time, peak resident set and ``exit-code verdict`` of a fresh process running
    the command line ``argv`` in process (nothing: the imports alone); ``None`` past
    ``timeout`` seconds."""
    try:
        return run_verdict(argv, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def ratio(now: float, before: float | None) -> str:
    return f"x{now / before:5.1f}" if before else "     "


def measure(shape: str, sizes: Sequence[int], timeout: float, floor: int) -> None:
    """Print one line a size for ``shape`` (see the module docstring)."""
    before: tuple[int, float, float, float, float] | None = None
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{shape}.jsonl"
            n = write_log(path, shape, n)
            mb = path.stat().st_size / 1e6
            found = run(["check-log", str(path)], timeout)
        head = f"  {shape:<11} {n:>6,} requests {mb:8.1f} MB"
        if found is None:
            print(f"{head}  over {timeout:,.0f} s", flush=True)
            before = None
            continue
        seconds, rss, verdict = found
        above = max(rss - floor, 0)
        per_request, per_mb = seconds / n * 1e3, seconds / mb
        last = before or (0, 0.0, 0.0, 0.0, 0.0)
        print(
            f"{head} {seconds:8.2f} s {ratio(seconds, last[1])} | "
            f"{per_request:7.3f} ms/request {ratio(per_request, last[2])} | "
            f"{per_mb:6.2f} s/MB {ratio(per_mb, last[3])} | "
            f"peak {above / 1e6:6.1f} MB above the imports {ratio(above, last[4])} | "
            f"exit {verdict}",
            flush=True,
        )
        before = (n, seconds, per_request, per_mb, above)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="1000,10000",
        help="comma-separated request counts of identical and interleaved (default 1000,10000)",
    )
    parser.add_argument(
        "--long-sizes",
        default="200,2000",
        help="comma-separated request counts of long and forks, whose every body grows with "
        "the turns (default 200,2000)",
    )
    parser.add_argument(
        "--shape",
        action="append",
        choices=sorted(SHAPES),
        help="measure only this shape (repeatable; default: all)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600,
        help="seconds one check-log run may take before it is reported as over (default 600)",
    )
    args = parser.parse_args()
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        long_sizes = [int(s) for s in args.long_sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes and --long-sizes take whole numbers separated by commas")
    found = run([], args.timeout)
    assert found is not None
    floor = found[1]
    print(
        "check-log over synthetic logs; ratios to the size before; target: ms/request flat "
        "(identical, interleaved), s/MB flat (long, forks)"
    )
    for shape in args.shape or SHAPES:
        measure(shape, long_sizes if shape in ("long", "forks") else sizes, args.timeout, floor)


if __name__ == "__main__":
    main()
