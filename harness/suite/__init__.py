"""The conformance suite as pytest items: ``pytest --pyargs harness.suite``.

One item per scenario × dialect, bundled fixtures (``<fixture-file>::<scenario-id>[<dialect>]``)
and a seeded number of generated scenarios (``generated::<nn>-<scenario-id>[<dialect>]``),
each judged by every rule as ``prefix-harness check`` judges it: the scenario runs of
``check`` for the same subject, seed and number. The subject is the plugin's
(``--prefix-subject``), started when each process collects the suite (what it declares
decides the items), so the suite runs under ``pytest -n auto`` with one subject per worker.
See docs/pytest.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy

if TYPE_CHECKING:
    from ._items import ConformanceFailure, ConformanceSuite, KnownFailureRaised, SuiteOptions
    from ._markers import marker_name
    from ._subject import LazySubject, SubjectUnavailable
    from ._verdict import Rerun, Verdict, judge

__all__ = [
    "ConformanceFailure",
    "ConformanceSuite",
    "KnownFailureRaised",
    "LazySubject",
    "Rerun",
    "SubjectUnavailable",
    "SuiteOptions",
    "Verdict",
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
    "Rerun": "_verdict",
    "Verdict": "_verdict",
    "judge": "_verdict",
    "marker_name": "_markers",
}


# the plugin needs the light modules at every start-up, the collectors only for the suite
__getattr__, __dir__ = lazy(__name__, globals(), _MODULES)
