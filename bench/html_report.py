"""What ``--html`` adds to ``prefix-harness check-log``: wall time and peak memory.

The logs are those of ``bench/check_log_memory.py`` (conversations of growing histories in
the minimal format, the largest record last). For each size, each in a fresh process, it
prints the wall time and peak resident set of ``check-log FILE`` and of
``check-log FILE --html PAGE``, the ratios of the two, and the page's size per request.

The targets: the timeline reads each body back once more and keeps the prefix streams of
a few requests only, so ``--html`` costs well under twice the time of the check, and its
peak memory stays a small multiple of the largest record plus the page (a few hundred bytes
a request), whatever the log's size. Timings are wall time of one run: noisy on a loaded
machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from check_log_memory import run_command, write_log


def measure(path: Path, lines: int, largest: int) -> None:
    size = path.stat().st_size
    print(f"log: {size / 1e6:,.1f} MB, {lines:,} lines, largest record {largest / 1e6:.1f} MB")
    _, floor = run_command([])
    page = path.with_suffix(".html")
    figures = []
    for name, extra in (("check-log", []), ("--html", ["--html", str(page)])):
        seconds, rss = run_command(["check-log", str(path), *extra])
        above = rss - floor
        figures.append((seconds, above))
        print(
            f"  {name + ':':<10} {seconds:,.1f} s, peak RSS {above / 1e6:,.1f} MB above the "
            f"imports = {above / largest:.1f}x the largest record, {above / size:.2f}x the log"
        )
    (plain_s, plain_m), (html_s, html_m) = figures
    written = page.stat().st_size
    print(
        f"  ratio:     --html takes {html_s / plain_s:.2f}x the time and {html_m / plain_m:.2f}x"
        f" the memory; the page is {written / 1e6:,.2f} MB, {written / lines:,.0f} bytes a request"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", default="20,80", help="comma-separated log sizes in MB (default 20,80)"
    )
    parser.add_argument(
        "--large", type=float, default=4, help="size of the largest record in MB (default 4)"
    )
    args = parser.parse_args()
    for mb in (float(s) for s in args.sizes.split(",") if s.strip()):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "large.jsonl"
            started = time.perf_counter()
            lines, largest = write_log(path, int(mb * 1e6), int(args.large * 1e6))
            print(f"(written in {time.perf_counter() - started:,.0f} s)")
            measure(path, lines, largest)


if __name__ == "__main__":
    main()
