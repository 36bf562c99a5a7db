"""Byte-level prefix comparison: prefix streams, the divergence locator, explanations."""

from ._compare import MISSING, PrefixComparison, SettingChange, compare, compare_settings
from ._explain import Window, byte_window, structural_diff
from ._locate import Divergence, common_prefix_length, first_difference, locate
from ._stream import Frame, PrefixStream, StreamError, common_segments, prefix_stream
from ._tools import ToolChange, tool_changes

__all__ = [
    "MISSING",
    "Divergence",
    "Frame",
    "PrefixComparison",
    "PrefixStream",
    "SettingChange",
    "StreamError",
    "ToolChange",
    "Window",
    "byte_window",
    "common_prefix_length",
    "common_segments",
    "compare",
    "compare_settings",
    "first_difference",
    "locate",
    "prefix_stream",
    "structural_diff",
    "tool_changes",
]
