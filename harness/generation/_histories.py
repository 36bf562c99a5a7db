"""Histories: alternating user and model messages in which every call is answered.

The shapes of all its turns are one drawn byte string (three bytes a turn: the parts each
message has, how many calls, which tools they call); each message then draws its texts, and a
model message with calls two draws for all the JSON of its calls and of their answers. A
history longer than ``DRAWN_TURNS`` builds all but its last turns from a drawn vocabulary and
seed.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import pairwise
from typing import Literal

from hypothesis import strategies as st

from ..model import FunctionCall, FunctionResponse, Image, Message, Part, Text, Thinking
from ._checks import check_flag, check_sizes
from ._json import JsonSource, json_blobs, pools
from ._sources import ByteReader, Dice, between, blobs, flags, one_of_these, texts
from ._text import any_texts, draw_text, unicode_text_of

__all__ = [
    "DRAWN_TURNS",
    "ENDINGS",
    "Ending",
    "draw_history",
    "histories",
    "model_message",
    "user_message",
]

Ending = Literal["model", "model_calls", "user"]
ENDINGS: tuple[Ending, ...] = ("model", "model_calls", "user")
_IMAGE = Image(mime_type="image/png", data="iVBORw0KGgo=")
_CALLS = 3
"""The most calls one drawn model message makes."""

DRAWN_TURNS = 8
"""Histories of up to this many turns are drawn message by message. A longer one builds all but
its last ``_TAIL`` turns from a small drawn vocabulary (texts, JSON objects) and a drawn seed:
hundreds of messages then cost a few draws and milliseconds, and still shrink (fewer turns,
seed 0, the vocabulary "0")."""
_TAIL = 2


_USER_SHAPES = 20
"""A user message: tens, whether one answering calls also has a text or image (else the
responses alone); units, 9 for an image (one in ten), else a text."""


def _turn_shapes(tools: int) -> int:
    """How many shapes a turn has: its user message's (``_USER_SHAPES``) and then its model
    message's: thinking (none, unsigned, signed), calls or not (but for the last message), a
    text beside the calls, how many calls, and the tool of each."""
    return _USER_SHAPES * 3 * 2 * 2 * _CALLS * int(tools**_CALLS)


_SHAPE_BYTES = 3
"""The bytes of a turn's shape, read from the history's one byte string (``ByteReader``)."""


def user_message(
    draw: st.DrawFn,
    pending: tuple[FunctionCall, ...],
    heavy: bool,
    shape: int,
    answers: JsonSource | None = None,
) -> Message:
    """The user's message of a turn of ``shape``: the responses to ``pending`` (read from
    ``answers``, the source their calls were read from, else drawn), and a text or image
    (always when there is nothing to answer)."""
    shape %= _USER_SHAPES
    parts: list[Part] = []
    if pending:
        source = answers or JsonSource(draw(json_blobs(len(pending))), draw(pools()))
        parts = [FunctionResponse(c.name, source.obj(), c.id) for c in pending]
    if not pending or shape >= 10:
        parts.append(_IMAGE if shape % 10 == 9 else Text(draw_text(draw, heavy)))
    return Message("user", tuple(parts))


def model_message(
    draw: st.DrawFn,
    tool_names: tuple[str, ...],
    turn: int,
    calls: bool | None,
    heavy: bool,
    shape: int,
) -> tuple[Message, JsonSource | None]:
    """The model's reply of a turn of ``shape``: maybe thinking, a text, and with ``calls``
    (drawn when None) one to three calls of ``tool_names``, ids ``call_<turn>_<part>``; and
    with calls the source their answers are read from next (the JSON of the calls and of
    their answers is one draw of bytes and one of text)."""
    shape //= _USER_SHAPES
    shape, thinking = divmod(shape, 3)
    shape, drawn_calls = divmod(shape, 2)
    shape, texted = divmod(shape, 2)
    shape, extra = divmod(shape, _CALLS)
    calls = bool(drawn_calls) if calls is None else calls
    parts: list[Part] = []
    if thinking:
        signature = f"sig_{turn}" if thinking == 2 else None
        parts.append(Thinking(draw(any_texts()), signature=signature))
    if not calls or texted:
        parts.append(Text(draw_text(draw, heavy)))
    if not calls:
        return Message("model", tuple(parts)), None
    source = JsonSource(draw(json_blobs(2 * (1 + extra))), draw(pools()))
    for _ in range(1 + extra):
        shape, tool = divmod(shape, len(tool_names))
        parts.append(FunctionCall(tool_names[tool], source.obj(), f"call_{turn}_{len(parts)}"))
    return Message("model", tuple(parts)), source


def histories(
    *,
    tool_names: tuple[str, ...] = ("search", "read_file"),
    ending: Ending | None = None,
    min_turns: int = 1,
    max_turns: int = 6,
    unicode_heavy: bool | None = False,
) -> st.SearchStrategy[tuple[Message, ...]]:
    """An alternating user/model history starting with a user message.

    Every model call is answered, in the next user message, by exactly one response with
    the same id and name. ``ending`` picks how it ends (docs/protocol.md): ``"model"`` (no calls),
    ``"model_calls"`` or ``"user"``; any of the three when None. A turn is a user message and
    the model's reply; ``max_turns`` may be in the hundreds (histories longer than 8 turns are
    built from a drawn vocabulary and seed, see ``DRAWN_TURNS``). ``unicode_heavy`` writes
    the texts with ``unicode_texts``: True forces it, False (default) rules it out, None draws.
    """
    if ending is not None and ending not in ENDINGS:
        raise ValueError(f"histories: ending={ending!r} is not one of {ENDINGS}")
    if min_turns < 1:
        raise ValueError(f"histories: min_turns={min_turns} must be at least 1")
    check_sizes("histories", min_turns, max_turns, low="min_turns", high="max_turns")
    check_flag("histories", "unicode_heavy", unicode_heavy)
    if isinstance(tool_names, str) or not all(isinstance(n, str) and n for n in tool_names):
        raise ValueError(f"histories: tool_names={tool_names!r} must be non-empty names")
    return _history_strategy(tuple(tool_names), ending, min_turns, max_turns, unicode_heavy)


@lru_cache(maxsize=512)
def _history_strategy(
    tool_names: tuple[str, ...],
    ending: Ending | None,
    min_turns: int,
    max_turns: int,
    unicode_heavy: bool | None,
) -> st.SearchStrategy[tuple[Message, ...]]:
    return _histories(tool_names or ("tool",), ending, min_turns, max_turns, unicode_heavy)


@st.composite
def _histories(
    draw: st.DrawFn,
    tool_names: tuple[str, ...],
    ending: Ending | None,
    min_turns: int,
    max_turns: int,
    unicode_heavy: bool | None,
) -> tuple[Message, ...]:
    heavy = draw(flags()) if unicode_heavy is None else unicode_heavy
    return draw_history(draw, tool_names, ending, min_turns, max_turns, heavy)


def draw_history(
    draw: st.DrawFn,
    tool_names: tuple[str, ...],
    ending: Ending | None,
    min_turns: int,
    max_turns: int,
    heavy: bool,
) -> tuple[Message, ...]:
    """A history as ``histories`` draws it, inside another strategy's draw (``tool_names``
    not empty)."""
    end = ending or draw(one_of_these(ENDINGS))
    turns = draw(between(min_turns, max_turns))
    messages: list[Message] = []
    pending: tuple[FunctionCall, ...] = ()
    first = 0
    if turns > DRAWN_TURNS:
        first = turns - _TAIL
        messages, pending = _filler(draw, tool_names, first, heavy)
    shapes = _turn_shapes(len(tool_names))
    size = _SHAPE_BYTES * (turns - first)
    reader = ByteReader(draw(blobs(size, size)))  # every turn's shape: one draw
    answers = None
    for turn in range(first, turns):
        shape = reader.integer(_SHAPE_BYTES) % shapes
        messages.append(user_message(draw, pending, heavy, shape, answers))
        last = turn == turns - 1
        if last and end == "user":
            break
        calls = end == "model_calls" if last else None
        reply, answers = model_message(draw, tool_names, turn, calls, heavy, shape)
        messages.append(reply)
        pending = reply.function_calls
    return tuple(messages)


_CALLS_PER_MESSAGE = (1, 1, 1, 2, 3)


@cache
def _vocabularies(heavy: bool) -> st.SearchStrategy[str | bytes]:
    """What a long history's words are cut from: a text, or a unicode-heavy text's bytes."""
    return blobs(2, 128) if heavy else texts(1, 320)


def _words(vocabulary: str, dice: Dice) -> list[str]:
    """One to eight words cut from ``vocabulary`` where the dice says: all of it for seed 0."""
    cuts = sorted(dice.below(len(vocabulary) + 1) for _ in range(dice.below(_WORDS)))
    return [vocabulary[a:b] for a, b in pairwise([0, *cuts, len(vocabulary)])]


_WORDS = 8


def _filler(
    draw: st.DrawFn, tool_names: tuple[str, ...], turns: int, heavy: bool
) -> tuple[list[Message], tuple[FunctionCall, ...]]:
    """``turns`` valid turns built from a drawn vocabulary and seed, and their open calls: the
    vocabulary is one draw, cut into words by the seed's dice."""
    drawn = draw(_vocabularies(heavy), label="vocabulary")
    objects = draw(json_blobs(4), label="objects")
    pool = draw(pools())
    seed = draw(between(0, 2**32 - 1), label="seed")
    messages, pending = _built_filler(tool_names, turns, drawn, objects, pool, seed)
    return list(messages), pending


def _built_filler(
    tool_names: tuple[str, ...],
    turns: int,
    drawn: str | bytes,
    objects: bytes,
    pool: str,
    seed: int,
) -> tuple[tuple[Message, ...], tuple[FunctionCall, ...]]:
    """The filler those draws stand for."""
    source = JsonSource(objects, pool)
    shared = [source.obj() for _ in range(4)]
    dice = Dice(seed)
    vocabulary = unicode_text_of(drawn, 320) if isinstance(drawn, bytes) else drawn
    words = _words(vocabulary, dice)
    chance, pick = dice.chance, dice.pick
    texts = [Text(w) for w in words]  # parts are immutable: one per word, shared
    messages: list[Message] = []
    pending: list[FunctionCall] = []
    for turn in range(turns):
        user: list[Part] = [FunctionResponse(c.name, pick(shared), c.id) for c in pending]
        if not pending or chance(0.3):
            user.append(_IMAGE if chance(0.05) else pick(texts))
        messages.append(Message("user", tuple(user)))
        model: list[Part] = []
        if chance(0.25):
            model.append(Thinking(pick(words), signature=f"sig_{turn}"))
        calls = chance(0.4)
        if not calls or chance(0.5):
            model.append(pick(texts))
        pending = []
        if calls:
            for _ in range(pick(_CALLS_PER_MESSAGE)):
                call = FunctionCall(pick(tool_names), pick(shared), f"call_{turn}_{len(model)}")
                model.append(call)
                pending.append(call)
        messages.append(Message("model", tuple(model)))
    return tuple(messages), tuple(pending)
