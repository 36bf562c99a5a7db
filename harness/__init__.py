"""prefix-harness: a conformance test harness for the request prefixes of forked subagents."""

from ._version import __version__

__all__ = ["__version__"]
