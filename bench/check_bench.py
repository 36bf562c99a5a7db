"""Benchmark of ``prefix-harness check``: where the time of a generated scenario run goes,
the default check's wall time after start-up, and the speed-up of ``--jobs 2``.

- per generated scenario run: drawing the scenarios (``harness.check.generate``, once for
  every dialect, so its cost is shared by their runs), the reference's assembly, the rules
  (each scenario assembled and then judged, in every dialect in a row, as a check runs
  them; see ``timed_pass``), over the default draw and seven seeded ones (``--seeds``);
- the default check (the bundled corpus and 25 generated scenarios in each of the four
  dialects, the reference in process), timed after the imports;
- the same run with ``jobs=2`` (worker processes, each with its own reference) against
  ``jobs=1``, and whether the two reports are the same; then both again with four times the
  generated scenarios;
- per run of a fixed set, the same in every run of this script (the generated draw changes
  with the strategies): the bundled corpus and, built here, a fork after 300 messages and
  three siblings after 200 (``protocol_bench.long_fork``), in every dialect; the reference's
  assembly and the rules.

Figures, no targets: the command as a user runs it is compared with another version by
``against.py``. Garbage collection is paced as the command paces it
(``harness.cli._collect``: what start-up and the warm-up loaded frozen, a raised
threshold), so a figure holds the collections a check pays and no others.

``--small`` is a smoke for CI: a few scenarios, one repeat. Figures are wall-clock times of
this machine (the default check's CPU time too): a loaded one gives larger ones.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from protocol_bench import long_fork

from harness.check import CheckRun, bundled_fixtures, generate, run_check
from harness.cli._collect import paced_collections
from harness.dialects import all_dialects
from harness.rules import evaluate
from harness.scenarios import ACTIONS, Scenario, load_fixtures
from harness.subjects import InProcessSubject, ReferenceSubject

T = TypeVar("T")


def best_of(repeats: int, action: Callable[[], T]) -> tuple[float, T]:
    """The least wall time of ``repeats`` calls of ``action``, and what the last one gave."""
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - started)
    assert result is not None
    return best, result


def timed_pass(runs: list[tuple[Scenario, str]]) -> tuple[float, float]:
    """The reference's assembly and the rules' time over ``runs`` (seconds), as a check runs
    them: each scenario assembled and then judged, each step timed apart."""
    subject = ReferenceSubject()
    asm = rules = 0.0
    clock = time.perf_counter
    for scenario, dialect in runs:
        started = clock()
        outcome = subject.assemble(scenario, dialect)
        assembled = clock()
        evaluate(scenario, dialect, outcome, subject=subject.name)
        asm += assembled - started
        rules += clock() - assembled
    return asm, rules


def per_run(examples: int, repeats: int, seeds: int) -> None:
    """Per generated scenario run, each scenario in every dialect as a check orders them,
    over the default draw and ``seeds - 1`` seeded ones: one draw of 25 may hold no long history or
    three, which moves its figure by half, so the figure is of them all."""
    dialects = list(all_dialects())
    generate(ACTIONS, 2)  # warm-up: the strategies are built once per process
    gen_s = asm_s = rules_s = 0.0
    drawn: list[Scenario] = []
    for rng_seed in (None, *range(1, seeds)):
        seconds, these = best_of(repeats, lambda s=rng_seed: generate(ACTIONS, examples, s))
        runs = [(s, d) for s in these for d in dialects]
        timed_pass(runs)  # warm-up: what the rules load on first use (a tokenizer's tables)
        asm, rules = min((timed_pass(runs) for _ in range(repeats)), key=sum)
        gen_s, asm_s, rules_s = gen_s + seconds, asm_s + asm, rules_s + rules
        drawn += these
    n = len(drawn) * len(dialects)
    gen, asm, rules = (x / n * 1e3 for x in (gen_s, asm_s, rules_s))
    total = gen + asm + rules
    lengths = [len(s.history) for s in drawn]
    print(
        f"per generated scenario run ({seeds} draws of {examples} scenarios x {len(dialects)} "
        f"dialects, {sum(lengths)} messages in all, {sum(n >= 100 for n in lengths)} histories "
        f"of 100 or more, the longest {max(lengths, default=0)}; best of {repeats}):"
    )
    print(f"  generation {gen:7.3f} ms  ({gen_s / len(drawn) * 1e3:.3f} ms per scenario drawn)")
    print(f"  assembly   {asm:7.3f} ms")
    print(f"  rules      {rules:7.3f} ms")
    print(f"  total      {total:7.3f} ms")


def default_check(examples: int, dialects: list[str], jobs: int) -> CheckRun:
    return run_check(
        InProcessSubject(ReferenceSubject()),
        load_fixtures(bundled_fixtures()),
        dialects=dialects,
        examples=examples,
        jobs=jobs,
        spawn=lambda: InProcessSubject(ReferenceSubject()),
    )


def wall(examples: int, repeats: int) -> None:
    """The default check after start-up, its collections paced as the command paces them
    (``harness.cli._collect``: start-up frozen, a raised threshold)."""
    dialects = list(all_dialects())
    default_check(1, dialects, 1)  # warm-up
    with paced_collections() as started:
        started()
        cpu = time.process_time()
        seconds, run = best_of(repeats, lambda: default_check(examples, dialects, 1))
        cpu = (time.process_time() - cpu) / repeats
    print(
        f"default check ({len(run.reports)} scenario runs, {run.generated} generated, exit "
        f"{run.exit_code}) after start-up: {seconds:.3f} s ({cpu:.3f} s of CPU on average)"
    )


def jobs(examples: int, repeats: int) -> None:
    """``--jobs 2`` against one job on the default check, and on a check of four times its
    generated scenarios, where the workers' start-up weighs less (the scenarios are drawn
    in the main process either way, so generation is not spread)."""
    dialects = list(all_dialects())
    for n in (examples, 4 * examples):
        one_s, one = best_of(repeats, lambda n=n: default_check(n, dialects, 1))  # type: ignore[misc]
        two_s, two = best_of(repeats, lambda n=n: default_check(n, dialects, 2))  # type: ignore[misc]
        same = (one.reports, one.shrunk, one.failures) == (two.reports, two.shrunk, two.failures)
        print(
            f"--jobs 2 with --examples {n}: {two_s:.3f} s against {one_s:.3f} s with one job: "
            f"speed-up {one_s / two_s:.2f}x; same report: {'yes' if same else 'NO'}"
        )


def fixed_set(small: bool) -> dict[str, list[Scenario]]:
    """The fixed scenarios by workload: the corpus, a long fork, long siblings."""
    corpus = list(load_fixtures(bundled_fixtures()))
    base = next(s for s in corpus if s.action == "fork" and s.snapshot)
    fork = long_fork(base, 40 if small else 300)
    siblings = replace(
        long_fork(base, 30 if small else 200),
        id="bench-long-siblings",
        action="siblings",
        directives=("Summarise.", "List the steps.", "Count the results."),
    )
    return {
        "corpus": corpus,
        f"fork-{len(fork.history)}": [fork],
        f"siblings-{len(siblings.history)}": [siblings],
    }


def fixed(small: bool, repeats: int) -> None:
    dialects = list(all_dialects())
    workloads = fixed_set(small)
    print(f"per run of the fixed set ({len(dialects)} dialects, best of {repeats}):")
    print(f"  {'workload':>14} {'runs':>5} {'assembly ms':>12} {'rules ms':>9} {'total ms':>9}")
    sums = [0.0, 0.0]
    count = 0
    for name, scenarios in workloads.items():
        runs = [(s, d) for s in scenarios for d in dialects]
        timed_pass(runs)  # warm-up
        asm_s, rules_s = min((timed_pass(runs) for _ in range(repeats)), key=sum)
        n = len(runs)
        sums[0] += asm_s
        sums[1] += rules_s
        count += n
        asm, rules = asm_s / n * 1e3, rules_s / n * 1e3
        print(f"  {name:>14} {n:5d} {asm:12.3f} {rules:9.3f} {asm + rules:9.3f}")
    asm, rules = (x / count * 1e3 for x in sums)
    total = asm + rules
    print(f"  {'all':>14} {count:5d} {asm:12.3f} {rules:9.3f} {total:9.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--small", action="store_true", help="a quick smoke (CI)")
    parser.add_argument("--examples", type=int, default=25, help="generated per dialect")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=8, help="draws of the per-run figure")
    parser.add_argument("--only-fixed", action="store_true", help="the fixed set's figure alone")
    args = parser.parse_args()
    examples, repeats = (3, 1) if args.small else (args.examples, args.repeats)
    seeds = 1 if args.small else max(args.seeds, 1)
    with paced_collections() as started:
        generate(ACTIONS, 1)  # what a check loads before its first scenario
        started()
        fixed(args.small, repeats)
        if args.only_fixed:
            return
        per_run(examples, repeats, seeds)
        wall(examples, repeats)
        jobs(examples, repeats)


if __name__ == "__main__":
    main()
