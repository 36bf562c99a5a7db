"""The conformance suite as pytest items: ``pytest --pyargs harness.suite``.

One item per scenario × dialect, bundled fixtures (``<fixture-file>::<scenario-id>[<dialect>]``)
and a seeded number of generated scenarios (``generated::<nn>-<scenario-id>[<dialect>]``),
each judged by every rule as ``prefix-harness check`` judges it. The subject is the plugin's
(``--prefix-subject``), started at the first item of each process, so the suite runs under
``pytest -n auto`` with one subject per worker. See docs/pytest.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._generated import generated_scenarios
    from ._items import ConformanceFailure, ConformanceSuite, KnownFailureRaised, SuiteOptions
    from ._markers import marker_name
    from ._subject import LazySubject, SubjectUnavailable
    from ._verdict import Verdict, judge

__all__ = [
    "ConformanceFailure",
    "ConformanceSuite",
    "KnownFailureRaised",
    "LazySubject",
    "SubjectUnavailable",
    "SuiteOptions",
    "Verdict",
    "generated_scenarios",
    "judge",
    "marker_name",
]

_MODULES = {
    "ConformanceFailure": "_items",
    "ConformanceSuite": "_items",
    "KnownFailureRaised": "_items",
    "LazySubject": "_subject",
    "SubjectUnavailable": "_subject",
    "SuiteOptions": "_items",
    "Verdict": "_verdict",
    "generated_scenarios": "_generated",
    "judge": "_verdict",
    "marker_name": "_markers",
}


def __getattr__(name: str) -> Any:
    """Import the private module that defines ``name``, on first use: the plugin needs the
    light ones at every start-up, the suite's collectors only when it is collected."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
