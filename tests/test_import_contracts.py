"""The import contracts of pyproject.toml (``[tool.importlinter]``, run by ``lint-imports`` in
CI): the tree keeps them all, and each breaks, alone, on an import planted against it in a
copy of the package (a contract that cannot fail would hold nothing)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


@cache
def contract_names() -> dict[str, str]:
    """Each contract's id -> its name, as ``lint-imports`` prints it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {c["id"]: c["name"] for c in config["tool"]["importlinter"]["contracts"]}


def lint(tree: Path) -> tuple[int, str, set[str]]:
    """``lint-imports`` over the package in ``tree``: exit code, output, ids of broken ones."""
    done = subprocess.run(
        [str(LINT), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        env=os.environ | {"COLUMNS": "400"},  # one line per contract, however long its name
    )
    out = done.stdout + done.stderr
    broken = {i for i, name in contract_names().items() if f"{name} BROKEN" in out}
    return done.returncode, out, broken


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the package, which ``lint-imports`` reads from its working folder."""
    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path


def plant(tree: Path, module: str, line: str) -> None:
    path = tree / module
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(f"\n{line}\n")


def test_the_package_keeps_every_contract() -> None:
    code, out, broken = lint(ROOT)
    assert (code, broken) == (0, set()), out
    assert f"Contracts: {len(contract_names())} kept, 0 broken." in out


def test_the_copy_is_what_is_linted(tree: Path) -> None:
    code, out, broken = lint(tree)
    assert (code, broken) == (0, set()), out
    plant(tree, "harness/model/_paths.py", "from ..rules import catalog")
    assert lint(tree)[2]


PLANTED = [
    pytest.param(
        "harness/model/_paths.py",
        "from ..rules import catalog",
        {"layers", "acyclic"},
        "harness.model._paths -> harness.rules",
        id="an-import-upward-is-a-layer-broken-and-a-cycle",
    ),
    pytest.param(
        "harness/extra/__init__.py",
        "from ..model import Message",
        {"layers"},
        "harness.extra",
        id="a-package-placed-in-no-layer",
    ),
    pytest.param(
        "harness/rules/_layout.py",
        "from ..subjects import ReferenceSubject",
        {"rules-judge-alone"},
        "harness.rules._layout -> harness.subjects",
        id="rules-importing-a-subject",
    ),
    pytest.param(
        "harness/rules/_layout.py",
        "from ..assemblers import assemble_fork",
        {"rules-judge-alone"},
        "harness.rules._layout -> harness.assemblers",
        id="rules-importing-the-reference",
    ),
    pytest.param(
        "harness/cli/_rules.py",
        "from ..suite import judge",
        {"cli-no-testing"},
        "harness.cli._rules -> harness.suite",
        id="the-command-line-importing-the-suite",
    ),
    pytest.param(
        "harness/reports/_escape.py",
        "from . import _diff",
        {"acyclic"},
        "._escape -> ._diff",
        id="a-cycle-inside-a-package",
    ),
    pytest.param(
        "harness/reports/_diff.py",
        "from ..prefix._explain import byte_window",
        {"private"},
        "harness.reports._diff -> harness.prefix._explain",
        id="a-private-module-of-another-package",
    ),
]


@pytest.mark.parametrize(("module", "line", "expected", "said"), PLANTED)
def test_a_planted_import_breaks_its_contract_alone(
    tree: Path, module: str, line: str, expected: set[str], said: str
) -> None:
    plant(tree, module, line)
    code, out, broken = lint(tree)
    assert code == 1, out
    assert broken == expected, out
    assert said in out
