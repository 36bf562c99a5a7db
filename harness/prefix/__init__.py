"""Prefix comparison: prefix streams, the divergence locator, explanations, and the providers'
caches simulated over rendered units (docs/cache-model.md)."""

from ._cache import PrefixCache, Priced, judge_pair, priced
from ._compare import (
    MISSING,
    PrefixComparison,
    SettingChange,
    compare,
    compare_settings,
    rendered_stream,
)
from ._count import count_units, tokenizer
from ._explain import Window, byte_window, structural_diff
from ._locate import Divergence, common_prefix_length, first_difference, locate
from ._simulate import CacheSimulator, Usage, prefix_digests
from ._stream import Frame, PrefixStream, StreamError, common_segments, prefix_stream
from ._tools import ToolChange, tool_changes

__all__ = [
    "MISSING",
    "CacheSimulator",
    "Divergence",
    "Frame",
    "PrefixCache",
    "PrefixComparison",
    "PrefixStream",
    "Priced",
    "SettingChange",
    "StreamError",
    "ToolChange",
    "Usage",
    "Window",
    "byte_window",
    "common_prefix_length",
    "common_segments",
    "compare",
    "compare_settings",
    "count_units",
    "first_difference",
    "judge_pair",
    "locate",
    "prefix_digests",
    "prefix_stream",
    "priced",
    "rendered_stream",
    "structural_diff",
    "tokenizer",
    "tool_changes",
]
