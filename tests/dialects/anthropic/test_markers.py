"""Anthropic messages cache markers: read apart from the prefix, rendered where breakpoints put
them (_markers)."""

from __future__ import annotations

from harness.dialects.anthropic import DIALECT
from harness.model import (
    Message,
    Preset,
    Request,
    Text,
    Tool,
)

from .support import EPHEMERAL, parse, render_dict


def test_markers_are_rendered_on_the_last_block_of_each_named_segment() -> None:
    request = Request(
        Preset(system=("only",), tools=(Tool("t"),)),
        (Message("user", (Text("a"),)), Message("model", (Text("b"), Text("c")))),
        cache_breakpoints=("tools[0]", "system[0]", "messages[0]", "messages[1]"),
    )
    body = render_dict(request)
    assert body["system"] == [{"type": "text", "text": "only", "cache_control": EPHEMERAL}]
    assert body["tools"][0]["cache_control"] == EPHEMERAL
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "a", "cache_control": EPHEMERAL}
    ]
    assert "cache_control" not in body["messages"][1]["content"][0]
    assert body["messages"][1]["content"][1]["cache_control"] == EPHEMERAL
    assert parse(body).cache_breakpoints == request.cache_breakpoints


def test_whole_system_marker_lands_on_its_last_block() -> None:
    request = Request(Preset(system=("a", "b")), (), cache_breakpoints=("system",))
    body = render_dict(request)
    assert body["system"][1]["cache_control"] == EPHEMERAL
    assert DIALECT.parse(body).cache_markers == ("system[1]",)
