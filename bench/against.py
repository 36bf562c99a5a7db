"""The commands a user runs, side by side: this checkout against another one (``--against DIR``).

Each figure is a whole process, run in turn on this checkout (its modules first on the path,
this interpreter) and on the other (``DIR/.venv/bin/python``, ``DIR`` first on the path), the
two alternating so that the machine's load falls on both alike; the least of ``--repeats``
runs is kept. The same input files serve both.

- ``check``: the default run (the bundled corpus and the generated scenarios, the reference);
- ``check --examples 200``;
- ``diff`` of a ~5 MB and a ~55 MB pair (a parent and its fork, compact JSON as most clients
  send it), and of the ~55 MB pair indented;
- capture throughput: requests/s of the fake provider, sequential and with 16 clients, on
  each route of ``capture_bench.py``;
- ``check-log`` of a ~200 MB log (``check_log_memory.py``'s conversations): wall time and
  peak memory.

For each: this checkout's figure, the other's, and the ratio this/other of times (other/this
of rates: above 1 is slower here). A ratio above 1.5 is flagged. Times are CPU seconds (user +
system), which others' load on a shared machine disturbs least; wall seconds are shown too.
Without ``--against`` the figures of this checkout alone are printed. ``--small`` runs
every figure at a smoke size (CI).

    python3 bench/against.py [--against DIR] [--repeats N] [--small]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

import capture_bench  # noqa: E402
import check_log_memory  # noqa: E402
import diff_bench  # noqa: E402
import startup_bench  # noqa: E402

FLAG = 1.5
"""A ratio above this is flagged: the command got that much slower (or bigger) here."""

_MEASURE = """
import os, resource, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
print(os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""
"""Runs ``argv`` as a child and prints its exit code, wall and CPU seconds and peak resident
set (KiB): forked from this small process, so that the peak is the child's alone."""


@dataclass(frozen=True)
class Checkout:
    """A checkout of the project and the interpreter that runs it."""

    name: str
    root: Path
    python: str

    def harness(self, *argv: str) -> list[str]:
        return [self.python, "-m", "harness", *argv]

    def env(self) -> dict[str, str]:
        return startup_bench.environment() | {"PYTHONPATH": str(self.root)}


@dataclass(frozen=True)
class Run:
    """One whole process: its exit code, wall and CPU seconds, peak resident set in bytes."""

    code: int
    wall: float
    cpu: float
    peak: int


def measure(checkout: Checkout, argv: Sequence[str]) -> Run:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv],
        cwd=checkout.root,
        env=checkout.env(),
        capture_output=True,
        text=True,
        check=True,
    )
    code, wall, cpu, peak = done.stdout.split()
    return Run(int(code), float(wall), float(cpu), int(peak) * 1024)


def best(runs: list[Run]) -> Run:
    """The least of each figure (the exit codes must agree)."""
    codes = {r.code for r in runs}
    if len(codes) != 1:
        raise SystemExit(f"the exit codes of one command differ between runs: {sorted(codes)}")
    return Run(
        codes.pop(),
        min(r.wall for r in runs),
        min(r.cpu for r in runs),
        min(r.peak for r in runs),
    )


class Table:
    """The figures, printed as they come and collected for the summary."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.flagged: list[str] = []
        head = "".join(f"{n:>14}" for n in names)
        ratio = f"{'ratio':>8}" if len(names) > 1 else ""
        print(f"\n{'figure':<44}{head}{ratio}")

    def row(self, label: str, values: list[float], unit: str, *, rate: bool = False) -> None:
        """One figure for each checkout; the ratio is this/other (other/this for a rate)."""
        shown = "".join(f"{_shown(v, unit):>14}" for v in values)
        ratio = ""
        if len(values) > 1 and min(values) > 0:
            r = values[1] / values[0] if rate else values[0] / values[1]
            flag = "  > 1.5" if r > FLAG else ""
            if flag:
                self.flagged.append(label)
            ratio = f"{r:>7.2f}x{flag}"
        print(f"{label:<44}{shown}{ratio}", flush=True)


def _shown(value: float, unit: str) -> str:
    if unit == "MB":
        return f"{value / 1e6:,.0f} MB"
    if unit == "/s":
        return f"{value:,.0f}/s"
    return f"{value:.3f} s"


def commands(
    table: Table,
    checkouts: list[Checkout],
    label: str,
    argv: list[str],
    repeats: int,
    *,
    peak: bool = False,
) -> None:
    """A command on every checkout, alternating, best of ``repeats``: CPU and wall rows, and
    with ``peak`` the peak memory's."""
    runs: list[list[Run]] = [[] for _ in checkouts]
    for checkout in checkouts:
        measure(checkout, checkout.harness(*argv))  # not timed: writes the bytecode
    for _ in range(repeats):
        for i, checkout in enumerate(checkouts):
            runs[i].append(measure(checkout, checkout.harness(*argv)))
    found = [best(r) for r in runs]
    if len({r.code for r in found}) != 1:
        codes = ", ".join(f"{c.name} {r.code}" for c, r in zip(checkouts, found, strict=True))
        print(f"{label}: the checkouts' exit codes differ ({codes})")
    table.row(f"{label} (CPU)", [r.cpu for r in found], "s")
    table.row(f"{label} (wall)", [r.wall for r in found], "s")
    if peak:
        table.row(f"{label} (peak memory)", [float(r.peak) for r in found], "MB")


def capture(
    table: Table, checkouts: list[Checkout], requests: int, clients: int, repeats: int
) -> None:
    """Requests/s of the fake provider on each route, sequential and concurrent, best of
    ``repeats`` runs of each checkout's ``capture`` (alternating)."""
    rates: list[dict[tuple[str, str], float]] = [{} for _ in checkouts]
    for _ in range(repeats):
        for i, checkout in enumerate(checkouts):
            results, _, _, _ = capture_bench.run_capture(
                checkout.python, checkout.root, requests, clients, 2
            )
            for result in results:
                for mode in ("sequential", "concurrent"):
                    key = (str(result["route"]), mode)
                    rates[i][key] = max(rates[i].get(key, 0.0), float(result[mode]))
    for key in rates[0]:
        route, mode = key
        table.row(f"capture {route}, {mode}", [r[key] for r in rates], "/s", rate=True)


def write_pair(folder: Path, messages: int, indented: bool = False) -> tuple[str, str]:
    """A parent's and its fork's bodies of ``messages`` messages (``diff_bench``'s)."""
    parent, fork = diff_bench.build_bodies(messages)
    if indented:
        parent, fork = (
            orjson.dumps(orjson.loads(b), option=orjson.OPT_INDENT_2) for b in (parent, fork)
        )
    name = f"{messages}{'-indented' if indented else ''}"
    paths = folder / f"parent-{name}.json", folder / f"fork-{name}.json"
    for path, data in zip(paths, (parent, fork), strict=True):
        path.write_bytes(data)
    return str(paths[0]), str(paths[1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--against", metavar="DIR", type=Path, help="another checkout, with its own DIR/.venv"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (least kept)")
    parser.add_argument("--small", action="store_true", help="every figure at a smoke size (CI)")
    args = parser.parse_args()
    checkouts = [Checkout("this", ROOT, sys.executable)]
    if args.against is not None:
        other = args.against.resolve()
        python = other / ".venv" / "bin" / "python"
        if not (other / "harness").is_dir() or not python.exists():
            parser.error(f"{other} is not a checkout with its own .venv")
        checkouts.append(Checkout(other.name, other, str(python)))
    repeats = 1 if args.small else max(args.repeats, 1)
    examples = 2 if args.small else 200
    sizes = (20, 60) if args.small else (1_000, 11_000)
    log_mb = 2 if args.small else 200
    requests = 32 if args.small else 600
    print(
        f"whole processes, least of {repeats} run(s) each, alternating: "
        + ", ".join(f"{c.name} = {c.root} ({c.python})" for c in checkouts)
    )
    table = Table([c.name for c in checkouts])
    with tempfile.TemporaryDirectory(prefix="prefix-against-") as tmp:
        folder = Path(tmp)
        commands(table, checkouts, "check", ["check", "--no-progress"], repeats)
        more = ["check", "--no-progress", "--examples", str(examples)]
        commands(table, checkouts, f"check --examples {examples}", more, repeats)
        for messages, indented in ((sizes[0], False), (sizes[1], False), (sizes[1], True)):
            parent, fork = write_pair(folder, messages, indented)
            size = Path(parent).stat().st_size / 1e6
            label = f"diff {size:.1f} MB pair{', indented' if indented else ''}"
            argv = ["diff", parent, fork, "--max-body-size", "4G"]
            commands(table, checkouts, label, argv, repeats, peak=True)
        capture(table, checkouts, requests, 16, repeats)
        log = folder / "log.jsonl"
        check_log_memory.write_log(log, log_mb * 1_000_000, max(1, log_mb // 25) * 1_000_000)
        label = f"check-log {log.stat().st_size / 1e6:.0f} MB log"
        commands(table, checkouts, label, ["check-log", str(log)], repeats, peak=True)
    if len(checkouts) > 1:
        flagged = ", ".join(table.flagged) or "none"
        print(f"\nratios above {FLAG}x: {flagged}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
