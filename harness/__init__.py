"""prefix-harness: a conformance test harness for the request prefixes of forked subagents."""

__version__ = "0.1.0"

__all__ = ["__version__"]
