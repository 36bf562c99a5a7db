"""Benchmark of the reports of a ``check`` run: what each form costs beside the run itself.

Runs the reference subject over the bundled corpus and N generated scenarios per dialect
(every dialect), then times each report of that run: the text, the JSON (``check_json``),
the JUnit XML (``check_junit``), the Markdown summary (``outcomes_markdown``) and the
``--write-expect`` file, with the run's time for scale; and, as the tests do it, validating
the JSON against the shipped schema. Times are CPU seconds (user + system, the least of
``--repeats`` runs). Figures, not assertions: a report should cost a small share of the run.

    python3 bench/reports_bench.py [--examples N] [--repeats N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson

from harness.check import (
    KnownFailure,
    bundled_fixtures,
    expectations_toml,
    run_check,
)
from harness.dialects import all_dialects
from harness.reports import (
    check_json,
    check_junit,
    check_outcomes,
    check_text,
    outcomes_markdown,
    report_problems,
)
from harness.scenarios import load_fixtures
from harness.subjects import ReferenceSubject


def cpu(work: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=25)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    fixtures = load_fixtures(bundled_fixtures())
    start = time.process_time()
    run = run_check(
        ReferenceSubject(), fixtures, dialects=list(all_dialects()), examples=args.examples
    )
    run_seconds = time.process_time() - start
    document = check_json(run)
    outcomes = check_outcomes(run)
    entries = [
        (KnownFailure(r.scenario_id, f.rule, "TODO", dialect=r.dialect), f.message)
        for r in run.reports
        for f in r.findings
        if f.status != "not-applicable"
    ]
    forms: list[tuple[str, Callable[[], object]]] = [
        ("text", lambda: check_text(run)),
        ("json", lambda: check_json(run)),
        ("junit xml", lambda: check_junit(run)),
        ("markdown", lambda: outcomes_markdown(check_outcomes(run))),
        (f"expect file ({len(entries)} entries)", lambda: expectations_toml(entries)),
        ("json schema validation", lambda: report_problems(orjson.loads(document))),
    ]
    print(f"run: {len(run.reports)} scenario runs, {run_seconds:.2f} s CPU")
    print(f"json: {len(document):,} bytes; {len(outcomes.accepted)} accepted divergences")
    for name, work in forms:
        seconds = cpu(work, args.repeats)
        print(f"{name:<34} {seconds * 1000:8.1f} ms  = {seconds / run_seconds:6.1%} of the run")


if __name__ == "__main__":
    main()
