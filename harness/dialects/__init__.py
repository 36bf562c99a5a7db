"""Provider wire formats. A dialect parses a body into prefix segments, settings, cache
markers and the neutral model, renders the neutral model back, states its provider's facts
(``Facts``), and carries the capture side of the same wire (``Wire``: the fake provider's
routes and answers). One package per dialect (``anthropic``, ``gemini``, ``openai``,
``openai_responses``), each registered here once; code outside adds one with ``register``
(docs/extending.md)."""

from . import anthropic, gemini, openai, openai_responses
from ._base import (
    CacheMarker,
    Dialect,
    DialectError,
    ParsedBody,
    Segment,
    answered_one_to_one,
)
from ._cache_facts import CacheFacts, ModelFacts, Prices, Source
from ._cache_plan import CachePlan, Keyed, Write
from ._cache_view import CacheView
from ._equivalence import Equivalence
from ._facts import CacheScope, ConsecutiveTurns, Facts, Family, Link, Markers
from ._registry import (
    all_dialects,
    detect_dialect,
    get_dialect,
    providers,
    register,
    unregister,
    wires,
)
from ._reply import Reply, ToolCall, reply_from_json
from ._unit import Unit
from ._usage import ReportedUsage, UsageError
from ._wire import (
    FAKE_MODEL,
    Route,
    Stream,
    Turn,
    Wire,
    args_json,
    output_tokens,
    pieces,
    sse,
    with_fields,
)

for _builtin in (anthropic, gemini, openai, openai_responses):
    register(_builtin.DIALECT)

__all__ = [
    "FAKE_MODEL",
    "CacheFacts",
    "CacheMarker",
    "CachePlan",
    "CacheScope",
    "CacheView",
    "ConsecutiveTurns",
    "Dialect",
    "DialectError",
    "Equivalence",
    "Facts",
    "Family",
    "Keyed",
    "Link",
    "Markers",
    "ModelFacts",
    "ParsedBody",
    "Prices",
    "Reply",
    "ReportedUsage",
    "Route",
    "Segment",
    "Source",
    "Stream",
    "ToolCall",
    "Turn",
    "Unit",
    "UsageError",
    "Wire",
    "Write",
    "all_dialects",
    "answered_one_to_one",
    "args_json",
    "detect_dialect",
    "get_dialect",
    "output_tokens",
    "pieces",
    "providers",
    "register",
    "reply_from_json",
    "sse",
    "unregister",
    "wires",
    "with_fields",
]
