"""Grouping recorded requests into conversations by their history (docs/capture.md).

An agent's next turn repeats its last request's history and appends to it, so a request
whose neutral history extends an earlier request's history belongs to that request's
conversation, unless it starts a child: it extends a request that already has a next turn
(the conversation moved on without it), or its new user text carries a child message (the
fork tag, or the directive of a call the model just made). A child's first request starts
a conversation of its own whose ``origin`` is the request it branched from. Requests with
the script's parent mark always stay in the conversation they extend.

Prefixes are found through a digest of every history prefix, so grouping costs time in
proportion to the messages, not to the square of the requests; only the digest of each
request's whole history is kept, and each request is read back once, when it is placed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

import orjson

from ..model import FunctionCall, FunctionResponse, Image, Json, Message, Text, thaw
from ._observe import Ignored, Observed, reply_message
from ._script import DEFAULT_FORK_TAG

LIFECYCLES = ("one-shot", "continuable")
"""The lifecycles a fork's evidence (or ``GroupOptions.lifecycle``) decides between."""

__all__ = [
    "LIFECYCLES",
    "Conversation",
    "GroupOptions",
    "Grouping",
    "Hint",
    "Origin",
    "Prefixes",
    "added_by",
    "added_text",
    "directive_of",
    "group",
    "message_key",
    "model_turn",
    "received",
    "side_request",
    "string_values",
    "turn_calls",
]


@dataclass(frozen=True, slots=True)
class GroupOptions:
    """How children are recognized and checked.

    ``fork_tag``: the text of a fork child's message; ``directive_key``: the fork call's
    argument holding the directive (default: its first string argument); ``fork_tool``:
    the fork tool's name (default: learnt from the calls that started children);
    ``parent_mark``: the script mark of the parent's requests; ``parent_id``: the parent's
    agent id, which a continuable child's guidance must name (unknown: not checked);
    ``lifecycle``: ``one-shot`` or ``continuable`` for every fork, overriding what the
    requests show; ``session_fork_mark``: the script mark of the first request of a session
    fork (a new process continuing a saved session), which then starts a conversation of its
    own even when it extends the parent's last request.
    """

    fork_tag: str = DEFAULT_FORK_TAG
    directive_key: str | None = None
    fork_tool: str | None = None
    parent_mark: str = "parent"
    parent_id: str | None = None
    lifecycle: str | None = None
    session_fork_mark: str | None = None

    def __post_init__(self) -> None:
        if self.lifecycle not in (None, *LIFECYCLES):
            raise ValueError(f"lifecycle must be one of {', '.join(LIFECYCLES)}")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a conversation branched: conversation ``conversation``'s request at ``turn``."""

    conversation: int
    turn: int


@dataclass(frozen=True, slots=True)
class Conversation:
    """Requests that extend one another append-only, in order; ``origin`` is ``None`` for
    a conversation whose first request extends no earlier request."""

    index: int
    requests: tuple[Observed, ...]
    origin: Origin | None = None

    @property
    def first(self) -> Observed:
        return self.requests[0]

    @property
    def seqs(self) -> tuple[int, ...]:
        return tuple(r.seq for r in self.requests)

    @property
    def name(self) -> str:
        return f"conversation {self.index + 1}"


@dataclass(frozen=True, slots=True)
class Grouping:
    """The conversations of one dialect's requests, and the requests taken for retries."""

    conversations: tuple[Conversation, ...]
    retries: tuple[Ignored, ...] = ()


def string_values(value: object) -> list[str]:
    """Every non-blank string inside ``value`` (a call's arguments), in order, depth first."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in string_values(v)]
    if isinstance(value, tuple | list):
        return [s for v in value for s in string_values(v)]
    return []


def _candidates(call: FunctionCall, key: str | None) -> list[str]:
    """The arguments that may hold what the child was told: ``key`` alone when it is given."""
    args = call.args
    if not isinstance(args, dict):
        return []
    if key is not None:
        value = args.get(key)
        return [value] if isinstance(value, str) and value.strip() else []
    return string_values(args)


def directive_of(call: FunctionCall, key: str | None) -> str | None:
    """The call's directive before any child is seen: the argument ``key``, or its first
    string argument; ``None`` when there is none (or it is blank)."""
    return next(iter(_candidates(call, key)), None)


def received(call: FunctionCall, key: str | None, text: str) -> str | None:
    """The argument of ``call`` that a child's ``text`` holds: the longest string argument
    (or the argument ``key``) found in it, ``None`` when none is. This is how a directive is
    found from evidence: a runtime passes one argument (a prompt) to the child and keeps
    others (a description, an agent type) to itself, in whatever order they come."""
    found = [v for v in _candidates(call, key) if v in text]
    return max(found, key=len) if found else None


def added_text(history: Sequence[Message], start: int) -> str:
    """The text parts of the user messages of ``history[start:]``: where a child message is."""
    return "\n".join(
        p.text for m in history[start:] if m.role == "user" for p in m.parts if isinstance(p, Text)
    )


def added_by(request: Observed, start: int) -> str:
    """``added_text(request.history, start)``, from the request's hint when it noted that
    text (so the request is not read back), else read from its history."""
    hint = request.hint
    if isinstance(hint, Hint) and hint.base == start and hint.text is not None:
        return hint.text
    return added_text(request.history, start)


def model_turn(requests: Sequence[Observed], pos: int, *others: Observed) -> Message | None:
    """The model's answer to ``requests[pos]``: the recorded reply, else the agent's copy in
    its next request (or in ``others``, requests that branched from it); ``None`` if unknown."""
    request = requests[pos]
    if request.reply is not None:
        return reply_message(request.dialect, request.reply, request.nth)
    k = request.size
    for later in (*requests[pos + 1 : pos + 2], *others):
        if later.size > k and (message := later.model_at(k)) is not None:
            return message
    return None


def turn_calls(
    requests: Sequence[Observed], pos: int, *others: Observed
) -> tuple[FunctionCall, ...] | None:
    """The calls of ``model_turn(requests, pos, *others)`` (``None``: the turn is unknown),
    without reading a request back when grouping already noted them."""
    request = requests[pos]
    if request.reply is not None:
        return reply_message(request.dialect, request.reply, request.nth).function_calls
    k = request.size
    for later in (*requests[pos + 1 : pos + 2], *others):
        calls = later.calls_at(k)
        if calls is not None:
            return calls
    return None


@dataclass
class _Draft:
    requests: list[Observed]
    origin: Origin | None


HINT_TEXT = 2048
"""The longest added user text a hint keeps: a longer one is read back when it is needed."""


@dataclass(frozen=True, slots=True)
class Hint:
    """What grouping needs of a request, noted while it was read so that placing it reads
    nothing back: its place in the reading (``source``, ``order``), the digest of its whole
    history, the longest prefix of it that was an earlier request's whole history
    (``base`` messages, digest ``base_key``; 0: none) and the user text it adds after that
    prefix (``None`` when longer than ``HINT_TEXT``)."""

    source: object
    order: int
    key: bytes
    base: int
    base_key: bytes
    text: str | None


class Prefixes:
    """Notes a ``Hint`` on each request of one reading, in reading order: the digests of
    the earlier requests' whole histories, by dialect, are kept while it reads."""

    def __init__(self) -> None:
        self._seen: dict[str, set[bytes]] = {}
        self._count = 0
        self._token = object()  # what the hints name: not this object and its digests

    def note(self, request: Observed) -> None:
        """Note ``request``'s hint (it is read now: it was just observed)."""
        history = request.history
        hashes = list(_prefix_hashes(map(message_key, history)))
        seen = self._seen.setdefault(request.dialect, set())
        base = next((k for k in range(len(history) - 1, 0, -1) if hashes[k] in seen), 0)
        request.calls_at(base)
        text = added_text(history, base)
        self._count += 1
        kept = text if len(text) <= HINT_TEXT else None
        request.hint = Hint(self._token, self._count, hashes[-1], base, hashes[base], kept)
        seen.add(hashes[-1])


class _Builder:
    def __init__(self, options: GroupOptions) -> None:
        self.options = options
        self.drafts: list[_Draft] = []
        self.index: dict[tuple[int, bytes], _Entries] = {}
        self.keys: list[tuple[int, bytes]] = []  # each draft's tip's index key
        self.retries: list[Ignored] = []
        self.hinted: tuple[object, int] | None = (None, 0)

    def add(self, request: Observed) -> None:
        hint = self._hint(request)
        if hint is not None:
            same = self._find(request.size, hint.key)
            if same is not None:
                self._repeat(request, same, hint.key)
                return
            base = self._find(hint.base, hint.base_key) if hint.base else None
            if base is not None or not hint.base:
                if base is None:
                    self._start(request, None, hint.key)
                else:
                    self._extend(request, base, hint.key)
                return
        hashes = list(_prefix_hashes(map(message_key, request.history)))
        n = len(hashes) - 1
        same = self._find(n, hashes[n])
        if same is not None:
            self._repeat(request, same, hashes[n])
            return
        for length in range(n - 1, 0, -1):
            base = self._find(length, hashes[length])
            if base is not None:
                self._extend(request, base, hashes[n])
                return
        self._start(request, None, hashes[n])

    def _hint(self, request: Observed) -> Hint | None:
        """``request``'s hint, when it holds: every request placed so far came before it in
        one reading, in reading order, so none but those the hint saw can be its base."""
        hint = request.hint
        if not isinstance(hint, Hint) or self.hinted is None:
            self.hinted = None
            return None
        source, order = self.hinted
        if (source is not None and source is not hint.source) or hint.order <= order:
            self.hinted = None
            return None
        self.hinted = (hint.source, hint.order)
        return hint

    def _find(self, length: int, key: bytes) -> tuple[int, int] | None:
        """The earlier request whose whole history is the first ``length`` messages with
        digest ``key``: the tip of its conversation if one is, else the latest."""
        found = self.index.get((length, key))
        if found is None:
            return None
        return next(reversed(found.tips), found.latest)

    def _repeat(self, request: Observed, same: tuple[int, int], key: bytes) -> None:
        conversation, pos = same
        draft = self.drafts[conversation]
        if pos == 0:  # an identical first request: another child of the same origin
            self._note_turn(request, draft.origin)
            self._start(request, draft.origin, key)
        else:
            earlier = draft.requests[pos].seq
            why = f"repeats request {earlier} (a retry)"
            self.retries.append(Ignored(request.seq, why, "retry"))

    def _extend(self, request: Observed, base: tuple[int, int], key: bytes) -> None:
        conversation, pos = base
        draft = self.drafts[conversation]
        self._note_turn(request, Origin(conversation, pos))
        is_tip = pos == len(draft.requests) - 1
        parent = request.mark is not None and request.mark == self.options.parent_mark
        mark = self.options.session_fork_mark
        # the first request of a session fork starts its own conversation; its next turns
        # (answered by the same rule or not) continue it
        session = mark is not None and request.mark == mark != draft.requests[0].mark
        side = side_request(draft.requests[pos], request)
        own = not side and not session and not self._child_message(request, draft, pos)
        if is_tip and (parent or own):
            draft.requests.append(request)
            self._index(conversation, len(draft.requests) - 1, request, key)
        else:
            self._start(request, Origin(conversation, pos), key)

    def _child_message(self, request: Observed, draft: _Draft, pos: int) -> bool:
        """Whether the user text ``request`` adds holds the fork tag or a directive of a
        call in the model's answer to the request it extends."""
        text = added_by(request, draft.requests[pos].size)
        if self.options.fork_tag in text:
            return True
        calls = turn_calls(draft.requests, pos, request) or ()
        return any(received(c, self.options.directive_key, text) is not None for c in calls)

    def _note_turn(self, request: Observed, base: Origin | None) -> None:
        """Note the calls of ``request``'s copy of the model's answer to the request at
        ``base`` (which it extends) while ``request`` is read, for the roles to ask later."""
        if base is not None:
            request.calls_at(self.drafts[base.conversation].requests[base.turn].size)

    def _start(self, request: Observed, origin: Origin | None, key: bytes) -> None:
        self.drafts.append(_Draft([request], origin))
        self.keys.append((request.size, key))
        self._index(len(self.drafts) - 1, 0, request, key)

    def _index(self, conversation: int, pos: int, request: Observed, key: bytes) -> None:
        """Index the new tip of ``conversation`` (at ``pos``): the request before it, if
        any, is a tip no more."""
        if pos:
            del self.index[self.keys[conversation]].tips[(conversation, pos - 1)]
            self.keys[conversation] = (request.size, key)
        entries = self.index.get((request.size, key))
        if entries is None:
            entries = self.index[(request.size, key)] = _Entries((conversation, pos))
        entries.latest = (conversation, pos)
        entries.tips[(conversation, pos)] = None


class _Entries:
    """The requests of one whole-history digest: the latest indexed, and those that are
    still the tip of their conversation, in the order they were indexed (a dict as an
    ordered set), so that finding one costs the same however many share the digest."""

    __slots__ = ("latest", "tips")

    def __init__(self, latest: tuple[int, int]) -> None:
        self.latest = latest
        self.tips: dict[tuple[int, int], None] = {}


def side_request(before: Observed, request: Observed) -> bool:
    """Whether ``request``, though it extends ``before``'s history, is another agent reading
    the conversation (a memory extractor, a summarizer): its system instruction and its tool
    declarations both differ from ``before``'s. A next turn that changes only one of them
    stays in the conversation, where the append-only check reports the change."""
    return before.system_key != request.system_key and before.tools_key != request.tools_key


def _prefix_hashes(keys: Iterator[Hashable]) -> Iterator[bytes]:
    """A digest of every prefix of a history's message keys, from the empty one to the
    whole: long enough that two different prefixes never share one."""
    value = hashlib.blake2b(digest_size=16).digest()
    yield value
    for key in keys:
        value = hashlib.blake2b(value + _encoded(key), digest_size=16).digest()
        yield value


def _encoded(key: Hashable) -> bytes:
    """A message key as bytes (keys are tuples of strings)."""
    try:
        return orjson.dumps(key)
    except (TypeError, orjson.JSONEncodeError):
        return repr(key).encode("utf-8", "surrogatepass")


def message_key(message: Message) -> Hashable:
    """What grouping compares of a message: what it says, not how it was rendered.

    Text with white space folded; calls by name and arguments (keys sorted); results by
    content; images by source; call ids, signatures, thinking, parts the neutral model has
    no name for, and the content of system-role messages are left out. So a later turn that
    re-renders an old one (a call id or ``thoughtSignature`` dropped, a block turned into a
    string, white space changed) still continues its conversation, and the conversation's
    append-only check shows the bytes that changed and what that costs.
    """
    if message.role == "system":
        return ("system",)
    parts: list[Hashable] = []
    for part in message.parts:
        if isinstance(part, Text):
            folded = " ".join(part.text.split())
            if folded:
                parts.append(("text", folded))
        elif isinstance(part, FunctionCall):
            parts.append(("call", part.name, _canonical(part.args)))
        elif isinstance(part, FunctionResponse):
            parts.append(("result", _canonical(part.response)))
        elif isinstance(part, Image):
            parts.append(("image", part.url or (part.data or "")[:256]))
    return (message.role, tuple(parts))


def _canonical(value: object) -> str:
    """A JSON value encoded with sorted keys, so that key order does not split a
    conversation (the bytes still count, in the append-only check)."""
    try:
        return orjson.dumps(thaw(cast(Json, value)), option=orjson.OPT_SORT_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)


def group(requests: Sequence[Observed], options: GroupOptions | None = None) -> Grouping:
    """Conversations of ``requests`` (one dialect's, in arrival order)."""
    builder = _Builder(options or GroupOptions())
    for request in sorted(requests, key=lambda r: r.seq):
        builder.add(request)
    conversations = tuple(
        Conversation(i, tuple(d.requests), d.origin) for i, d in enumerate(builder.drafts)
    )
    return Grouping(conversations, tuple(builder.retries))
