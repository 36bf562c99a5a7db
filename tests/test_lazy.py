"""Names loaded on first use (harness/_lazy.py)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from harness._lazy import lazy
from harness.model import _json


def test_a_name_is_imported_from_its_module_once_then_kept() -> None:
    namespace: dict[str, Any] = {"__name__": "harness.model"}
    getattr_, dir_ = lazy("harness.model", namespace, {"dumps": "_json", "shown": "_json"})
    assert getattr_("dumps") is _json.dumps
    assert namespace["dumps"] is _json.dumps  # the next lookup finds it without __getattr__
    assert "shown" not in namespace
    assert dir_() == ["__name__", "dumps", "shown"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    getattr_, _ = lazy("harness.model", {}, {"dumps": "_json"})
    with pytest.raises(AttributeError, match=r"^module 'harness\.model' has no attribute 'nope'$"):
        getattr_("nope")


def test_a_module_loaded_for_a_name_is_reported_by_importtime() -> None:
    """The start-up tests read ``-X importtime``: a module a lazy name loads must show there."""
    code = "import harness.check as c; c.Expectations"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    )
    reported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "harness.check._expect" in reported
    assert "harness.check._run" not in reported


def test_a_name_mapped_to_itself_is_the_module_of_that_name() -> None:
    namespace: dict[str, Any] = {}
    getattr_, _ = lazy("harness", namespace, {"strategies": "strategies"})
    import harness.strategies

    assert getattr_("strategies") is harness.strategies
