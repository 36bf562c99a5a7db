"""The provider-neutral request model: immutable messages, parts, tools, presets."""

from ._json import FrozenDict, Json, dumps, freeze, json_kind, shown, thaw
from ._messages import (
    Extra,
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Opaque,
    Part,
    Role,
    Source,
    Text,
    Thinking,
)
from ._paths import join_path
from ._preset import OutputSchema, Preset, Request, Settings, ThinkingConfig, Tool, ToolChoice

__all__ = [
    "Extra",
    "FrozenDict",
    "FunctionCall",
    "FunctionResponse",
    "Image",
    "Json",
    "Message",
    "Opaque",
    "OutputSchema",
    "Part",
    "Preset",
    "Request",
    "Role",
    "Settings",
    "Source",
    "Text",
    "Thinking",
    "ThinkingConfig",
    "Tool",
    "ToolChoice",
    "dumps",
    "freeze",
    "join_path",
    "json_kind",
    "shown",
    "thaw",
]
