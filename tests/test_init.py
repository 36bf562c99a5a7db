"""The front door (harness/__init__.py): every public name resolves, from the module it is
documented in, and importing the package loads none of the machinery behind them."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

import harness
from harness import _api, capture, check, prefix, protocol, pytest_plugin, scenarios, subjects


def test_every_public_name_resolves_to_its_definition() -> None:
    expected = {
        "Captured": _api.Captured,
        "CheckResult": capture.CheckResult,
        "CheckRun": check.CheckRun,
        "InputError": _api.InputError,
        "Lifecycle": scenarios.Lifecycle,
        "Outcome": protocol.Outcome,
        "PrefixComparison": prefix.PrefixComparison,
        "ReferenceSubject": subjects.ReferenceSubject,
        "Scenario": scenarios.Scenario,
        "Subject": protocol.Subject,
        "SubjectStartError": subjects.SubjectStartError,
        "__version__": harness.__version__,
        "assert_conforms": pytest_plugin.assert_conforms,
        "assert_prefix_preserved": pytest_plugin.assert_prefix_preserved,
        "capture_command": _api.capture_command,
        "check_log": _api.check_log,
        "check_subject": _api.check_subject,
        "diff": _api.diff,
        "serve": subjects.serve,
        "strategies": import_module("harness.strategies"),
    }
    assert set(harness.__all__) == set(expected)
    for name, value in expected.items():
        assert getattr(harness, name) is value, name
    assert set(harness.__all__) <= set(dir(harness))


def test_importing_the_package_loads_nothing_behind_the_names() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import harness; harness.__version__"],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert {m for m in loaded if m.startswith("harness")} == {
        "harness",
        "harness._lazy",
        "harness._version",
    }
