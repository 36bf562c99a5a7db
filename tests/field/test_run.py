"""The field suite's own files (field/run.py): every program folder loads, every run's
script is a valid capture script and every expectation file a valid --expect file, and a
suite with nothing to run refuses to pass. The programs themselves run in .ci/run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from harness.capture import load_script
from harness.check import load_expectations

FIELD = Path(__file__).resolve().parents[2] / "field"


def runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("field_run", FIELD / "run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["field_run"] = module
    spec.loader.exec_module(module)
    return module


PROGRAMS = sorted(p.parent.name for p in FIELD.glob("*/program.toml"))


def test_the_suite_has_programs() -> None:
    assert {"qwen-code", "claude-code", "gemini-cli", "opencode", "codex"} <= set(PROGRAMS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_program_folder_loads_with_valid_scripts_and_expectations(name: str) -> None:
    program = runner().load(FIELD / name)
    assert program.runs
    assert program.version[0].isdigit()
    for run in program.runs:
        load_script(run.script)  # raises ScriptError naming the file
        if run.expect is not None:
            assert load_expectations(run.expect).entries
    used = {r.script.name for r in program.runs}
    assert used == {p.name for p in (FIELD / name / "scripts").glob("*.json")}, "unused scripts"


def test_a_suite_with_nothing_to_run_is_no_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = runner()
    monkeypatch.setattr(module, "HERE", tmp_path)
    assert module.main([]) == 2
