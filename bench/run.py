"""Every benchmark in one run: start-up, diff and its peers, check, the protocol, capture,
check-log and capture memory, the reports, the HTML page and the token estimate.

Each benchmark runs as its own process (its figures are whole-process figures, and one cannot
skew the next), in the order below; their output is printed as it comes, under a heading, and
a table at the end gives each one's exit code and wall time. ``--small`` runs each in its
smallest form, a smoke test that CI runs so that no benchmark rots (figures, no thresholds);
without it, each runs at the sizes its targets are stated in. ``--only NAME`` (repeatable)
runs some of them. ``--against DIR`` (a checkout of another version with its own
``DIR/.venv``) has ``against.py`` and ``check_log_memory.py`` measure that version side by
side with this one; without it they measure this one alone, so the smoke needs no other
checkout. Exit code: 0 when every benchmark ran, 1 when one failed.

    python3 bench/run.py [--small] [--only NAME ...] [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

# name: (script, arguments in full, arguments for the smoke)
BENCHMARKS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "against": ("against.py", (), ("--small",)),
    "startup": ("startup_bench.py", (), ("--repeats", "1")),
    "diff": ("diff_bench.py", (), ("--small",)),
    "check": ("check_bench.py", (), ("--small",)),
    "protocol": ("protocol_bench.py", (), ("--small",)),
    "capture": ("capture_bench.py", (), ("--small",)),
    "capture-memory": ("capture_memory.py", (), ("--requests", "20", "--size", "64")),
    "check-log-memory": ("check_log_memory.py", (), ("--sizes", "4", "--large", "1")),
    "check-log-scale": ("check_log_scale.py", (), ("--sizes", "50,500", "--long-sizes", "20,200")),
    "reports": ("reports_bench.py", (), ("--examples", "3", "--repeats", "1")),
    "html": ("html_report.py", (), ("--sizes", "2", "--large", "0.5")),
    "tokens": ("tokens_bench.py", (), ()),
}

AGAINST = ("against", "check-log-memory")
"""The benchmarks that take ``--against DIR``."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="a quick smoke of each (CI)")
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(BENCHMARKS),
        metavar="NAME",
        help=f"run only this one (repeatable): {', '.join(BENCHMARKS)}",
    )
    parser.add_argument(
        "--against",
        metavar="DIR",
        type=Path,
        help="another checkout (with DIR/.venv) to measure side by side",
    )
    args = parser.parse_args()
    names = [n for n in BENCHMARKS if not args.only or n in args.only]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    results: list[tuple[str, int, float]] = []
    for name in names:
        script, full, small = BENCHMARKS[name]
        command = [sys.executable, str(BENCH / script), *(small if args.small else full)]
        if args.against is not None and name in AGAINST:
            command += ["--against", str(args.against.resolve())]
        print(f"\n=== {name}: {' '.join(command[1:])}", flush=True)
        started = time.perf_counter()
        code = subprocess.call(command, cwd=ROOT, env=env)
        results.append((name, code, time.perf_counter() - started))
    print("\n=== summary")
    for name, code, seconds in results:
        verdict = "ran" if code == 0 else f"FAILED (exit {code})"
        print(f"  {name:<17} {verdict:<16} {seconds:7.1f} s")
    return 0 if all(code == 0 for _, code, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
