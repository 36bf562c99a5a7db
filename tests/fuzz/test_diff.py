"""``prefix-harness diff`` on mutated bodies of every dialect: the example bodies and the
reference's renders (snapshots), with types changed, keys deleted or duplicated, nesting
deepened, huge numbers and bad UTF-8. Whatever the bodies, diff answers 0, 1 or 2 (one
sentence), never a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from harness.dialects import all_dialects

from ._fuzz import assert_clean, dumps, fuzz_settings, mutated_bytes, mutated_value, run_cli

ROOT = Path(__file__).parents[2]
DIALECTS = list(all_dialects())


def _seeds() -> list[tuple[str, Any, Any]]:
    """(dialect, parent, fork) pairs: the examples, and one snapshot per dialect."""
    seeds = []
    for name in ("openai", "openai-responses"):
        folder = ROOT / "examples" / name
        parent = orjson.loads((folder / "parent.json").read_bytes())
        for fork in ("fork.json", "fork-broken.json"):
            seeds.append((name, parent, orjson.loads((folder / fork).read_bytes())))
    for dialect in DIALECTS:
        for path in sorted((ROOT / "snapshots" / dialect).glob("*.json"))[:2]:
            snapshot = orjson.loads(path.read_bytes())
            if snapshot.get("parent") and snapshot.get("children"):
                seeds.append((dialect, snapshot["parent"], snapshot["children"][0]))
    return seeds


SEEDS = _seeds()
ALLOWED = {0, 1, 2}


def diff(parent: bytes, fork: bytes, *options: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        p, f = Path(tmp) / "parent.json", Path(tmp) / "fork.json"
        p.write_bytes(parent)
        f.write_bytes(fork)
        assert_clean(run_cli(["diff", str(p), str(f), *options]), ALLOWED)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[bytes, bytes, list[str]]:
    dialect, parent, fork = draw(st.sampled_from(SEEDS))
    sides = draw(st.sampled_from(["parent", "fork", "both"]))
    p = dumps(draw(mutated_value(parent))) if sides != "fork" else orjson.dumps(parent)
    f = dumps(draw(mutated_value(fork))) if sides != "parent" else orjson.dumps(fork)
    if draw(st.booleans()):
        f = draw(mutated_bytes(f))
    options = draw(st.sampled_from([[], ["--dialect", dialect], ["--json"]]))
    return p, f, options


def test_the_seeds_are_read() -> None:
    assert {d for d, _, _ in SEEDS} == set(DIALECTS)
    for _, parent, fork in SEEDS:
        diff(orjson.dumps(parent), orjson.dumps(fork))


@fuzz_settings(150)
@given(pairs())
def test_mutated_bodies_exit_0_1_or_2_without_a_traceback(
    case: tuple[bytes, bytes, list[str]],
) -> None:
    parent, fork, options = case
    diff(parent, fork, *options)


def test_as_a_process_of_its_own(tmp_path: Path) -> None:
    """A body nested 5,000 deep and one of bad UTF-8 through ``python -m harness``."""
    import subprocess
    import sys

    _, parent, fork = SEEDS[0]
    good = tmp_path / "parent.json"
    good.write_bytes(orjson.dumps(parent))
    for name, data in [
        ("deep.json", b'{"messages": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
        ("utf8.json", orjson.dumps(fork).replace(b"agent", b"ag\xffent", 1)),
    ]:
        (tmp_path / name).write_bytes(data)
        done = subprocess.run(
            [sys.executable, "-m", "harness", "diff", str(good), str(tmp_path / name)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode in ALLOWED, done.stderr
        assert "Traceback" not in done.stderr
