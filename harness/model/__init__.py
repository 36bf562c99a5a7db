"""The provider-neutral request model: immutable messages, parts, tools, presets."""

from ._json import (
    FrozenDict,
    Json,
    canonical,
    dumps,
    freeze,
    json_kind,
    same_value,
    shown,
    thaw,
)
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
    "canonical",
    "dumps",
    "freeze",
    "join_path",
    "json_kind",
    "same_value",
    "shown",
    "thaw",
]
