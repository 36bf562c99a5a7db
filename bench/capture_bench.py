"""Throughput of the fake provider of ``prefix-harness capture``, as an agent sees it.

This runs the real command, ``prefix-harness capture --dialect openai``, with this same
script as the agent (``--client``): a small program that reads the base URL from the
environment capture sets and sends requests over keep-alive connections, timing them
itself. Per route (OpenAI chat completions as JSON and as SSE, the Responses API as SSE) it
measures

- sequential requests/s: one ``http.client.HTTPConnection`` reused for every request;
- concurrent requests/s: ``--clients`` threads (16), each with its own kept-alive
  connection, all started at once, timed from the start to the last answer.

Every answer is checked (status 200, a stream read to its last event). When the command has
ended, the record file must hold exactly one record per request sent, route by route.

    python3 bench/capture_bench.py [--requests N] [--clients N] [--body-kib N] [--small]

Prints requests/s per route and mode with the targets as ratios (>= 1.00 meets it): 300/s
sequential, 600/s with 16 clients. ``--small`` is a quick smoke for CI: few requests, no
target. Exits 1 when a request failed or a record is missing, else 0.
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.capture import read_record  # noqa: E402

SEQUENTIAL_TARGET = 300.0
CONCURRENT_TARGET = 600.0
SCRIPT = {"default": {"text": "Done: the files are listed and the README is read."}}


@dataclass(frozen=True)
class Route:
    """One route the agent calls: its path, whether it streams, and how its answer's last
    event starts (a JSON answer: how it ends)."""

    name: str
    path: str
    stream: bool
    last: bytes

    def body(self, size: int) -> bytes:
        """A request body of about ``size`` bytes: a system prompt and one user turn."""
        system = "You are a careful coding agent. " * max(1, size // 32)
        if self.path.endswith("/responses"):
            request = {"model": "bench", "instructions": system, "input": "list the files"}
        else:
            messages = [
                {"role": "system", "content": system},
                {"role": "user", "content": "list the files"},
            ]
            request = {"model": "bench", "messages": messages}
        return orjson.dumps({**request, "stream": True} if self.stream else request)


ROUTES = (
    Route("openai chat, JSON", "/v1/chat/completions", False, b"}"),
    Route("openai chat, SSE", "/v1/chat/completions", True, b"data: [DONE]"),
    Route("openai responses, SSE", "/v1/responses", True, b"event: response.completed"),
)
HEADERS = {"content-type": "application/json", "authorization": "Bearer sk-bench-fake"}


def _call(connection: http.client.HTTPConnection, route: Route, body: bytes) -> None:
    """One request on a kept-alive connection; ``RuntimeError`` unless it is answered
    200 with the route's whole answer."""
    connection.request("POST", route.path, body=body, headers=HEADERS)
    response = connection.getresponse()
    data = response.read()
    whole = (
        data.rstrip(b"\n").rsplit(b"\n\n", 1)[-1].startswith(route.last)
        if route.stream
        else data.endswith(route.last)
    )
    if response.status != 200 or not whole:
        raise RuntimeError(f"{route.name}: HTTP {response.status}, answer {data[-80:]!r}")


def _sequential(host: str, port: int, route: Route, body: bytes, count: int) -> float:
    """Seconds for ``count`` requests, one after the other on one connection."""
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        started = time.perf_counter()
        for _ in range(count):
            _call(connection, route, body)
        return time.perf_counter() - started
    finally:
        connection.close()


def _concurrent(host: str, port: int, route: Route, body: bytes, clients: int, each: int) -> float:
    """Seconds for ``clients`` connections to send ``each`` requests apiece at once."""
    start = threading.Barrier(clients + 1)
    errors: list[BaseException] = []

    def client() -> None:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        try:
            connection.connect()
            start.wait()
            for _ in range(each):
                _call(connection, route, body)
        except BaseException as e:  # reported by the main thread
            errors.append(e)
        finally:
            connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(f"{len(errors)} of {clients} clients failed: {errors[0]}")
    return time.perf_counter() - started


def client(out: Path, requests: int, clients: int, body_kib: int) -> None:
    """The agent: every route, sequential then concurrent; the timings to ``out``."""
    origin = urlsplit(os.environ["PREFIX_HARNESS_CAPTURE_URL"])
    host, port = origin.hostname or "127.0.0.1", origin.port or 80
    each = max(1, requests // clients)
    results = []
    for route in ROUTES:
        body = route.body(body_kib * 1024)
        _sequential(host, port, route, body, 5)  # warm-up: imports, first connection
        seconds = _sequential(host, port, route, body, requests)
        together = _concurrent(host, port, route, body, clients, each)
        results.append(
            {
                "route": route.name,
                "sent": 5 + requests + clients * each,
                "sequential": requests / seconds,
                "concurrent": clients * each / together,
            }
        )
    out.write_bytes(orjson.dumps(results))


def _counts(record: Path) -> dict[str, int]:
    """Answered records by route name (path and stream); anything else as ``other``."""
    counts: dict[str, int] = {}
    for r in read_record(record):
        for route in ROUTES:
            if r.path == route.path and bool(r.stream) == route.stream and r.status == 200:
                counts[route.name] = counts.get(route.name, 0) + 1
                break
        else:
            counts["other"] = counts.get("other", 0) + 1
    return counts


def run_capture(
    python: str, root: Path, requests: int, clients: int, body_kib: int
) -> tuple[list[dict[str, Any]], dict[str, int], float, int]:
    """Run ``prefix-harness capture`` of the checkout at ``root`` with the interpreter
    ``python``, this script as its agent: each route's timings, the records by route, the
    whole run's seconds and capture's exit code. ``RuntimeError`` when the agent did not
    finish."""
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        (where / "script.json").write_bytes(orjson.dumps(SCRIPT))
        agent = [python, str(Path(__file__).resolve()), "--client", str(where / "t")]
        agent += ["--requests", str(requests), "--clients", str(clients)]
        agent += ["--body-kib", str(body_kib)]
        command = [python, "-c", "from harness.cli import main; main()", "capture"]
        command += ["--dialect", "openai", "--script", str(where / "script.json")]
        command += ["--record", str(where / "record.jsonl"), "--timeout", "900", "--", *agent]
        env = {**os.environ, "PYTHONPATH": str(root)}
        started = time.perf_counter()
        run = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if not (where / "t").exists():
            raise RuntimeError(
                f"{run.stderr[-2000:]}\nthe agent did not finish (capture exited {run.returncode})"
            )
        results = orjson.loads((where / "t").read_bytes())
        return results, _counts(where / "record.jsonl"), elapsed, run.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--requests", type=int, default=600, help="requests per route and mode (default 600)"
    )
    parser.add_argument(
        "--clients", type=int, default=16, help="concurrent keep-alive clients (default 16)"
    )
    parser.add_argument(
        "--body-kib", type=int, default=2, help="size of each request body in KiB (default 2)"
    )
    parser.add_argument(
        "--small", action="store_true", help="a quick smoke: 32 requests, no targets"
    )
    parser.add_argument("--client", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.requests < 1 or args.clients < 1 or args.body_kib < 0:
        parser.error("--requests and --clients are at least 1, --body-kib at least 0")
    requests = 32 if args.small else args.requests
    if args.client is not None:
        client(args.client, requests, args.clients, args.body_kib)
        return 0
    try:
        results, counts, elapsed, code = run_capture(
            sys.executable, ROOT, requests, args.clients, args.body_kib
        )
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    print(
        f"prefix-harness capture --dialect openai, the agent a keep-alive client program;"
        f" {requests} requests per route and mode, {args.clients} clients, bodies of"
        f" {args.body_kib} KiB; the whole run took {elapsed:.1f} s (capture exited"
        f" {code})"
    )
    print(f"{'route':<24} {'sequential/s':>12} {'ratio':>6} {'concurrent/s':>13} {'ratio':>6}")
    lost = 0
    for result in results:
        sequential, concurrent = result["sequential"], result["concurrent"]
        alone = "" if args.small else f"{sequential / SEQUENTIAL_TARGET:.2f}"
        together = "" if args.small else f"{concurrent / CONCURRENT_TARGET:.2f}"
        print(
            f"{result['route']:<24} {sequential:12.0f} {alone:>6} {concurrent:13.0f} {together:>6}"
        )
        recorded = counts.get(result["route"], 0)
        if recorded != result["sent"]:
            lost += 1
            print(f"  {result['route']}: {result['sent']} requests sent, {recorded} recorded")
    if not args.small:
        print(
            f"targets: {SEQUENTIAL_TARGET:.0f}/s sequential, {CONCURRENT_TARGET:.0f}/s with"
            " 16 clients (ratio >= 1.00 meets it)"
        )
    sent = sum(result["sent"] for result in results)
    total = sum(counts.values())
    verdict = "ok" if not lost and total == sent else "LOST OR EXTRA RECORDS"
    print(f"record: {total} records for {sent} requests sent: {verdict}")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
