"""Presets (system instruction, tools, settings) and whole requests (docs/protocol.md#fields)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from ._json import FrozenDict, Json
from ._messages import Message

__all__ = [
    "OutputSchema",
    "Preset",
    "Request",
    "Settings",
    "ThinkingConfig",
    "Tool",
    "ToolChoice",
]


@dataclass(frozen=True, slots=True)
class Tool:
    """A function declaration; ``parameters`` is a JSON Schema whose key order is kept."""

    name: str
    description: str | None = None
    parameters: Json = None


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """``tool`` forces the single tool in ``names``; ``required`` may restrict to ``names``."""

    mode: Literal["auto", "none", "required", "tool"]
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ThinkingConfig:
    mode: Literal["enabled", "disabled", "adaptive"] | None = None
    budget_tokens: int | None = None
    effort: str | None = None
    include_thoughts: bool | None = None


@dataclass(frozen=True, slots=True)
class OutputSchema:
    """Structured output: the JSON Schema the model's answer must follow."""

    schema: Json
    name: str | None = None
    strict: bool | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """Request fields outside the cached prefix, except where a dialect caches them.

    ``extra`` holds, per dialect, what that dialect sends beyond the named settings: its own
    top-level fields (``{"openai": {"seed": 7}}``: a scenario may give one entry for each
    dialect it is rendered in, docs/protocol.md#fields), and what a dialect's reading keeps
    to render the head back as it was sent (a leftover of a known container, a system or
    declarations in a form the named fields do not say; each dialect's reserved keys are
    listed in its ``_settings`` and ``_head`` modules). A dialect renders its own entry only.
    """

    model: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_output_tokens: int | None = None
    stop: tuple[str, ...] | None = None
    thinking: ThinkingConfig | None = None
    tool_choice: ToolChoice | None = None
    output_schema: OutputSchema | None = None
    extra: FrozenDict = field(default_factory=FrozenDict)

    def with_extra(self, dialect: str, fields: Mapping[str, Json]) -> Settings:
        """These settings with ``fields`` added to ``dialect``'s own entry of ``extra``."""
        if not fields:
            return self
        own = self.extra.get(dialect, FrozenDict())
        merged = FrozenDict({**self.extra, dialect: FrozenDict({**own, **fields})})
        return replace(self, extra=merged)


@dataclass(frozen=True, slots=True)
class Preset:
    """What a fork must inherit verbatim: system blocks, ordered tools and settings."""

    system: tuple[str, ...] = ()
    tools: tuple[Tool, ...] = ()
    settings: Settings = field(default_factory=Settings)


@dataclass(frozen=True, slots=True)
class Request:
    """A request head: a preset plus the message history.

    ``cache_breakpoints`` names where cache markers sit in dialects that have them: a prefix
    segment (``"tools[2]"``, ``"messages[5]"``: its last block) or one block of a segment
    (``"messages[5].content[0]"``). ``cache_control`` holds the marker object of a breakpoint
    by that name when it is not the dialect's plain marker (an anthropic ``ttl``).
    """

    preset: Preset
    history: tuple[Message, ...] = ()
    cache_breakpoints: tuple[str, ...] = ()
    cache_control: FrozenDict = field(default_factory=FrozenDict)
