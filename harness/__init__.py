"""prefix-harness: a conformance test harness for the request prefixes of forked subagents.

The public Python API is what this module exports (``__all__``; docs/api.md): the four
commands as functions that return their results (``check_subject``, ``diff``,
``capture_command``, ``check_log``), the result and error types, the in-process ``Subject``
protocol with ``Outcome`` and ``Scenario``, the bundled ``ReferenceSubject`` and ``serve``
(a Python subject over the protocol), the Hypothesis ``strategies``, and the pytest helpers
``assert_conforms`` and ``assert_prefix_preserved``. Public too, each with its page: the
pytest plugin (``harness.pytest_plugin``, docs/pytest.md), its conformance suite
(``pytest --pyargs harness.suite``) and ``harness.strategies`` (docs/strategies.md); and
the few names of other packages that a page of docs/ shows in use, as it shows them.
Everything else under ``harness`` is private and changes without notice.

The names are loaded on first use (module ``__getattr__``, ``harness/_lazy.py``): importing
``harness`` loads none of the machinery behind them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy
from ._version import __version__

if TYPE_CHECKING:
    from . import strategies
    from ._api import Captured, InputError, capture_command, check_log, check_subject, diff
    from .capture import CheckResult
    from .check import CheckRun
    from .prefix import PrefixComparison
    from .protocol import Outcome, Subject
    from .pytest_plugin import assert_conforms, assert_prefix_preserved
    from .scenarios import Lifecycle, Scenario
    from .subjects import ReferenceSubject, SubjectStartError, serve

__all__ = [
    "Captured",
    "CheckResult",
    "CheckRun",
    "InputError",
    "Lifecycle",
    "Outcome",
    "PrefixComparison",
    "ReferenceSubject",
    "Scenario",
    "Subject",
    "SubjectStartError",
    "__version__",
    "assert_conforms",
    "assert_prefix_preserved",
    "capture_command",
    "check_log",
    "check_subject",
    "diff",
    "serve",
    "strategies",
]

_MODULES = {
    "Captured": "_api",
    "InputError": "_api",
    "capture_command": "_api",
    "check_log": "_api",
    "check_subject": "_api",
    "diff": "_api",
    "CheckResult": "capture",
    "CheckRun": "check",
    "PrefixComparison": "prefix",
    "Outcome": "protocol",
    "Subject": "protocol",
    "assert_conforms": "pytest_plugin",
    "assert_prefix_preserved": "pytest_plugin",
    "Lifecycle": "scenarios",
    "Scenario": "scenarios",
    "ReferenceSubject": "subjects",
    "SubjectStartError": "subjects",
    "serve": "subjects",
    "strategies": "strategies",
}

__getattr__, __dir__ = lazy(__name__, globals(), _MODULES)
