"""The spellings Anthropic renders as one prompt (docs/cache-model.md), each documented or
inferred, with its source."""

from __future__ import annotations

from typing import Final

from .._equivalence import Equivalence

__all__ = ["CACHING_REFERENCE", "EQUIVALENCES", "MESSAGES_REFERENCE"]

MESSAGES_REFERENCE: Final = "https://platform.claude.com/docs/en/api/messages/create"
CACHING_REFERENCE: Final = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching"

EQUIVALENCES: Final = (
    Equivalence(
        "json-spelling",
        "the body's whitespace and string escapes",
        "inferred",
        "the API parses the body before it renders the prompt, so the JSON spelling of "
        "the body never reaches the model",
        MESSAGES_REFERENCE,
    ),
    Equivalence(
        "envelope-key-order",
        "the key order of a message or a content block",
        "inferred",
        "the API reads these objects by field name and renders them in a template of its "
        "own; a tool declaration (its input_schema above all) and a tool_use input keep "
        "their key order",
        MESSAGES_REFERENCE,
    ),
    Equivalence(
        "string-content",
        "a string content is shorthand for one text block",
        "documented",
        'the Messages API: "Using a string for content is shorthand for an array of one '
        'content block of type text"',
        MESSAGES_REFERENCE,
    ),
    Equivalence(
        "string-system",
        "a string system prompt is one text block",
        "inferred",
        "documented for message content; the system prompt takes the same two forms",
        MESSAGES_REFERENCE,
    ),
    Equivalence(
        "consecutive-turns",
        "consecutive turns of one role are combined into one turn",
        "documented",
        'the Messages API: "Consecutive user or assistant turns in your request will be '
        'combined into a single turn"',
        MESSAGES_REFERENCE,
    ),
    Equivalence(
        "cache-control",
        "cache_control markers are not content",
        "documented",
        "the prompt-caching guide: a block no longer marked is still a cache hit; markers "
        "say where entries are written and read",
        CACHING_REFERENCE,
    ),
)
