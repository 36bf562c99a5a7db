"""Memory of the fake provider of ``prefix-harness capture``, measured with tracemalloc.

What it holds after serving must not grow with the bodies it was sent (records are on
disk; ``records`` reads them back), and what one request may allocate is bounded by the
request (at most ``--max-request-size``), not by the limit itself: a body over the limit,
declared or chunked, is drained a buffer at a time.

    python3 bench/capture_memory.py [--requests N] [--size KIB]

Prints, per case, the traffic sent, the memory retained after serving (with the fake still
running) and the peak while serving, in MiB. One case reads ``records`` back every ten
requests and lets them go: what the fake keeps of them must not grow with the bodies either.
"""

from __future__ import annotations

import argparse
import gc
import socket
import sys
import tempfile
import tracemalloc
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.capture import FakeProvider

MIB = 1024 * 1024


def _request(body: bytes, chunked: bool = False) -> bytes:
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
    if chunked:
        return (
            head + b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
        )
    return head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body


def _send(provider: FakeProvider, payload: bytes) -> None:
    with socket.create_connection((provider.host, provider.port)) as sock:
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(65536):
            pass


def _case(
    name: str, payload: bytes, count: int, limit: int, folder: Path, read_back: bool = False
) -> None:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    with FakeProvider("openai", record=folder / f"{name}.jsonl", max_request_bytes=limit) as fake:
        for i in range(count):
            _send(fake, payload)
            if read_back and i % 10 == 9:
                assert len(fake.records) == i + 1  # read back, then let go
        gc.collect()
        retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    traffic = len(payload) * count
    print(
        f"{name:<34} traffic {traffic / MIB:8.1f}  limit {limit / MIB:7.0f}"
        f"  retained {(retained - base) / MIB:7.2f}  peak {(peak - base) / MIB:7.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--size", type=int, default=256, help="body size in KiB")
    args = parser.parse_args()
    text = "x" * (args.size * 1024)
    body = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": text}]})
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        _case("answered, limit 32 MiB", _request(body), args.requests, 32 * MIB, where)
        _case("answered, limit 1 GiB", _request(body), args.requests, 1024 * MIB, where)
        _case("answered, 4x the requests", _request(body), args.requests * 4, 32 * MIB, where)
        _case(
            "answered, records read every 10", _request(body), args.requests, 32 * MIB, where, True
        )
        big = b" " * (64 * MIB)
        _case("64 MiB chunked over a 1 MiB limit", _request(big, chunked=True), 3, MIB, where)
        _case("64 MiB declared over a 1 MiB limit", _request(big), 3, MIB, where)


if __name__ == "__main__":
    main()
