"""Every benchmark is run by ``bench/run.py``, so CI's smoke of it keeps each from rotting."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).parents[1] / "bench"


def test_bench_run_lists_every_benchmark() -> None:
    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    listed = {script for script, _, _ in module.BENCHMARKS.values()}
    scripts = {p.name for p in BENCH.glob("*.py")} - {"run.py"}
    assert listed == scripts


def test_ci_runs_the_benchmark_smoke() -> None:
    ci = (BENCH.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 bench/run.py --small" in ci
