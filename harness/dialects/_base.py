"""What every dialect provides: parse a body into segments, settings and the neutral model,
and render the neutral model back to a body."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar, TypeVar

import orjson

from ..model import FunctionCall, FunctionResponse, Message, Request, dumps, json_kind
from ._cache_facts import CacheFacts, ModelFacts, Prices, Source
from ._cache_plan import CachePlan, Keyed
from ._cache_view import CacheView
from ._facts import CacheScope, Facts, Family
from ._unit import Unit
from ._usage import ReportedUsage, count_field, reported_fields, required_field
from ._wire import Wire

__all__ = [
    "CacheMarker",
    "CacheScope",
    "Dialect",
    "DialectError",
    "Family",
    "ParsedBody",
    "Segment",
]


class DialectError(ValueError):
    """The body is valid JSON but not a request of the dialect.

    ``path`` is where in the body the problem is (``messages[3].content``), when known.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message if path is None else f"{path}: {message}")
        self.reason = message
        self.path = path


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of the cached prefix, as sent: its parsed value keeps the body's key order.

    ``name`` is the segment's JSON path in the body (``tools[3]``, ``system``,
    ``messages[7]``, ``tools[0].functionDeclarations[2]``); cache markers are already
    removed from ``value``.
    """

    name: str
    value: Any


@dataclass(frozen=True, slots=True)
class CacheMarker:
    """One cache marker of a body, as its dialect's cache reads it.

    ``segment`` is the name of the prefix segment holding the marked block, ``block`` the
    marked block's index among the body's cacheable blocks in cache order (how blocks are
    counted is the dialect's, see ``Dialect.cache_marks``), ``ttl`` the marker's effective
    time to live (its default when it names none) and ``value`` the marker object as sent.
    """

    segment: str
    block: int
    ttl: str | None
    value: Any


class ParsedBody:
    """A request body read through one dialect (``Dialect.parse``).

    ``segments`` and ``settings`` are read at once (cheap, and they validate the envelope);
    the neutral ``request`` and the cache ``markers`` are read on first use: a long history
    costs real time to convert and a byte comparison needs neither.
    """

    def __init__(
        self,
        dialect: Dialect,
        body: dict[str, Any],
        segments: tuple[Segment, ...],
        settings: Mapping[str, Any],
    ) -> None:
        self.dialect = dialect
        self.body = body
        self.segments = segments
        self.settings = settings

    @cached_property
    def markers(self) -> tuple[CacheMarker, ...]:
        """Every cache marker with its block position and ttl, in cache order; none in
        dialects without markers."""
        return self.dialect.guarded(self.dialect.cache_marks, self.body)

    @property
    def cache_markers(self) -> tuple[str, ...]:
        """The names of the segments that carry a cache marker, in cache order."""
        return tuple(dict.fromkeys(marker.segment for marker in self.markers))

    @cached_property
    def request(self) -> Request:
        """The body in the neutral model; raises ``DialectError`` if a part is malformed."""
        return self.dialect.guarded(self.dialect.to_request, self.body)

    @cached_property
    def cache(self) -> CacheView:
        """The body as its provider's cache sees it: its rendered units, the facts of its
        model and where it writes and reads entries (docs/cache-model.md)."""
        return self.dialect.guarded(self.dialect.cache_view, self.body)

    def __repr__(self) -> str:
        return f"<ParsedBody {self.dialect.name} segments={len(self.segments)}>"


_T = TypeVar("_T")


class Dialect(ABC):
    """A provider wire format.

    ``parse`` is the one way in: it refuses a body that is not a JSON object, then calls the
    dialect's hooks (``segments``, ``settings``, and on first use ``to_request`` and
    ``cache_marks``), each given a decoded JSON object; a body nested too deeply for Python's
    recursion limit is refused there too (``guarded``). A hook raises ``DialectError`` for a
    body that is not of the dialect, whatever JSON it holds: never ``TypeError``,
    ``KeyError`` or the like. ``render`` is a pure function of its request.
    """

    facts: ClassVar[Facts]
    """What the dialect states about its provider (``harness.dialects.Facts``)."""
    wire: ClassVar[Wire | None] = None
    """The capture side of the same wire (the fake provider's routes and answers); None
    for a dialect that cannot be captured."""

    @property
    def name(self) -> str:
        """The dialect's name (``facts.name``)."""
        return self.facts.name

    @property
    def title(self) -> str:
        """A short human name (``facts.title``)."""
        return self.facts.title

    @abstractmethod
    def detect(self, body: Mapping[str, Any]) -> int:
        """How strongly the body looks like this dialect: 0 for not at all.

        Count features only this dialect has (a role name, a block type, a field).
        Never raises, whatever the body holds.
        """

    @abstractmethod
    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        """The prefix segments in cache order, with cache markers removed.

        Validates the envelope (types of the top-level fields, that messages are objects
        with a known role) and raises ``DialectError`` otherwise.
        """

    @abstractmethod
    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Fields outside the prefix that still matter to the cache, by name, as sent:
        model, sampling, max tokens, thinking/effort, tool_choice, output schema."""

    def cache_marks(self, body: Mapping[str, Any]) -> tuple[CacheMarker, ...]:
        """Every cache marker of the body in cache order, with its block index and ttl."""
        return ()

    def marker_ttl(self, marker: Any) -> str | None:
        """The effective time to live of a marker object: its ``ttl``, else the default
        (None in a dialect without markers)."""
        ttl = marker.get("ttl") if isinstance(marker, dict) else None
        if isinstance(ttl, str):
            return ttl
        return None if self.facts.markers is None else self.facts.markers.default_ttl

    def cache_scope(self, setting: str) -> CacheScope | None:
        """What changing ``setting`` costs in the provider's cache (None: nothing). A dotted
        name is keyed when its head is (``generationConfig.x`` by ``generationConfig``)."""
        keys, name = self.facts.cache_keys, setting
        while True:
            if name in keys:
                return keys[name]
            if "." not in name:
                return None
            name = name.rsplit(".", 1)[0]

    def families(self, segments: Sequence[Segment]) -> tuple[Family, ...]:
        """The family of each segment, in order: by the root of its name, and a leading
        run of history messages with one of ``facts.system_roles`` counts as the system."""
        out = [self._named_family(s.name) for s in segments]
        if "history" in out:  # the leading run: up to the first other history message
            roles = self.facts.system_roles
            for k in range(out.index("history"), len(out)):
                if out[k] == "history":
                    if _role(segments[k].value) not in roles:
                        break
                    out[k] = "system"
        return tuple(out)

    def _named_family(self, name: str) -> Family:
        root = name.split("[", 1)[0].split(".", 1)[0]
        return self.facts.segments.get(root) or _guess_family(root)

    def read_segments(self, message: Message) -> int | None:
        """How many prefix segments of its body ``message`` was read from (the body items
        of its source, each one segment: no rendering needed); None for a message this
        dialect did not read."""
        source = message.source
        return len(source.items) if source is not None and source.dialect == self.name else None

    def units(self, body: Mapping[str, Any]) -> tuple[Unit, ...]:
        """The body's rendered prefix: the units the provider renders, in cache order, each
        in the canonical form its documented equivalences give (docs/cache-model.md).

        By default the prefix segments as sent, one unit each: a dialect that states no
        equivalence compares its bodies as sent."""
        families = self.families(self.segments(body))
        return tuple(
            Unit(s.name, s.name, family, s.value, dumps(s.value))
            for s, family in zip(self.segments(body), families, strict=True)
        )

    def cache_plan(
        self, units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts
    ) -> CachePlan:
        """Where the body writes and reads cache entries, by the provider's rules. By
        default none: a dialect without a cache model is judged by structure alone."""
        return CachePlan(caching=False, notes=(f"the {self.name} dialect states no cache model",))

    def model_facts(self, body: Mapping[str, Any]) -> tuple[CacheFacts, ModelFacts, bool]:
        """The cache facts that apply to the body, its model's row and whether the facts
        know the model (else the reference model's row). A dialect stating no cache facts
        gets neutral ones: no minimum, about 4 characters a token, no prices."""
        facts = self.facts.cache or _NEUTRAL
        model, known = facts.model(body.get("model"))
        return facts, model, known

    def usage_fields(
        self, total: int, read: int, written: int, body: Mapping[str, Any]
    ) -> dict[str, int]:
        """A request's predicted cache usage in the provider's own usage fields (dotted
        names for nested ones), as its response would report it; by default neutral
        names."""
        return {_INPUT: total, _CACHED: read, _WRITTEN: written}

    usage_key: ClassVar[str] = "usage"
    """Where the provider's response carries its usage object."""

    def response_usage(self, response: Mapping[str, Any]) -> Any:
        """The usage object of a provider's whole response (``usage_key``), or None."""
        return response.get(self.usage_key)

    def reported_usage(self, usage: Mapping[str, Any], body: Mapping[str, Any]) -> ReportedUsage:
        """A reported usage object (the one ``response_usage`` finds) read in the names
        ``usage_fields`` writes: the inverse of it. ``UsageError`` (harness.dialects) when
        a value is no token count or the cached tokens are not there."""
        total, read = count_field(usage, _INPUT), required_field(usage, _CACHED)
        written = count_field(usage, _WRITTEN)
        return ReportedUsage(
            total, read, written, reported_fields(usage, (_INPUT, _CACHED, _WRITTEN))
        )

    def keyed(self, units: Sequence[Unit], body: Mapping[str, Any]) -> tuple[Keyed, ...]:
        """The settings the body's cache entries are keyed on (``Facts.cache_keys``), each
        from the first unit of the family it invalidates (a ``request`` setting from the
        start), compared by value."""
        firsts: dict[str, int] = {}
        for i, unit in enumerate(units):
            firsts.setdefault(unit.family, i)
        out = []
        for name, value in self.settings(body).items():
            scope = self.cache_scope(name)
            if scope is None:
                continue
            position = 0 if scope == "request" else firsts.get(scope, len(units))
            out.append(Keyed(name, _by_value(value), position))
        return tuple(out)

    def cache_view(self, body: Mapping[str, Any]) -> CacheView:
        """The body as its provider's cache sees it (``ParsedBody.cache``): its units, the
        dialect's plan for them keyed on the settings the cache is keyed on."""
        units = self.units(body)
        facts, model, known = self.model_facts(body)
        plan = replace(self.cache_plan(units, body, model), keyed=self.keyed(units, body))
        return CacheView(units, plan, model, known, facts, self.facts)

    def calls_answered(
        self, calls: Sequence[FunctionCall], responses: Sequence[FunctionResponse]
    ) -> bool:
        """Whether ``responses`` answer ``calls`` one to one as this provider pairs them.

        By default each call has exactly one response with its id and name, and nothing
        else (anthropic, openai: ids are required and pair the two).
        """
        return answered_one_to_one(calls, responses)

    def continued(self, body: Mapping[str, Any]) -> str | None:
        """The id of a stored response the body continues on the provider's side (OpenAI
        Responses ``previous_response_id``); None where the dialect has no server state."""
        return None

    def expand(
        self, body: Mapping[str, Any], before: Mapping[str, Any], answer: Sequence[Message]
    ) -> dict[str, Any]:
        """A continuation as the provider reads it: the continued request's input (``before``)
        and the model's ``answer`` to it ahead of the body's own. Only dialects whose
        ``continued`` can name a response implement it."""
        raise NotImplementedError(f"the {self.name} dialect has no continuations")

    @abstractmethod
    def to_request(self, body: Mapping[str, Any]) -> Request:
        """The body in the neutral model. Raises ``DialectError`` naming the path."""

    @abstractmethod
    def render(self, request: Request) -> bytes:
        """The body an implementation would POST for ``request``: compact JSON bytes.

        What the dialect cannot express is dropped or mapped to its nearest form, so that
        ``render(parse(render(r)))`` equals ``render(r)`` byte for byte.
        """

    def parse(self, body: Any) -> ParsedBody:
        """Read an already decoded JSON body: its segments and settings at once, its
        request and markers on first use. Raises ``DialectError``."""
        if not isinstance(body, dict):
            raise DialectError(f"the body is {json_kind(body)}, not a JSON object")
        return ParsedBody(
            self, body, self.guarded(self.segments, body), self.guarded(self.settings, body)
        )

    @staticmethod
    def guarded(read: Callable[[dict[str, Any]], _T], body: dict[str, Any]) -> _T:
        """``read(body)``, a body nested too deeply for Python's recursion limit refused
        with a ``DialectError`` (a hook's own errors are its own)."""
        try:
            return read(body)
        except RecursionError:
            raise DialectError("the body is nested too deeply to read") from None


def _by_value(value: Any) -> bytes:
    """A setting's value as compared for the cache: by value, key order aside."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return dumps(value)


_NEUTRAL = CacheFacts(
    provider="",
    models=(),
    reference=ModelFacts(
        "",
        "a model of unknown cache facts",
        0,
        4.0,
        Prices(0.0, 0.0),
        Source("", "no cache facts stated", ""),
    ),
)


def answered_one_to_one(
    calls: Sequence[FunctionCall], responses: Sequence[FunctionResponse]
) -> bool:
    """Whether each call has exactly one response with its id and name, and nothing else:
    the same (id, name) pairs as multisets."""
    return Counter((c.id, c.name) for c in calls) == Counter((r.id, r.name) for r in responses)


def _guess_family(root: str) -> Family:
    """The family of a segment whose root the dialect does not list, by its name."""
    lowered = root.lower()
    if "system" in lowered:
        return "system"
    if "tool" in lowered and "config" not in lowered:
        return "tools"
    if lowered in ("messages", "contents", "input"):
        return "history"
    return "settings"


def _role(value: Any) -> Any:
    return value.get("role") if isinstance(value, dict) else None


_INPUT, _CACHED, _WRITTEN = "input_tokens", "cached_tokens", "cache_write_tokens"
"""The neutral usage names of a dialect that states none."""
