"""docs/strategies.md is true: its from_type example runs as written, in a fresh interpreter
(the registration must come from importing harness.strategies, not from this test run)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "strategies.md"


def test_the_from_type_example_runs() -> None:
    blocks = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    (example,) = [b for b in blocks if "st.from_type(Scenario)" in b]
    script = example + "\ntest_every_scenario_has_an_id()\nprint('ran')\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ran")


def test_without_the_import_from_type_cannot_draw_a_scenario() -> None:
    # what the doc's import is for: a fresh interpreter that skips it cannot resolve the type
    script = (
        "from hypothesis import strategies as st\n"
        "from harness.scenarios import Scenario\n"
        "try:\n    st.from_type(Scenario).example()\nexcept Exception as e:\n"
        "    print(type(e).__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.stdout.strip() == "ResolutionFailed", done.stderr
