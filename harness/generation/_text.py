"""Text for the strategies: names, non-blank phrases, unicode-heavy text, and text a ``Dice``
makes. Each is one Hypothesis draw (a text, an integer or a byte string), never a piece by
piece composition, and shrinks toward ``"0"`` or ``"a"``."""

from __future__ import annotations

import string
from functools import cache

from hypothesis import strategies as st

from ._checks import check_at_least, check_sizes
from ._sources import ByteReader, Dice, between, blobs, texts

__all__ = [
    "NAME_CODES",
    "any_texts",
    "dice_name",
    "dice_text",
    "draw_phrase",
    "draw_text",
    "name_codes",
    "name_of",
    "phrases",
    "unicode_blobs",
    "unicode_text_of",
    "unicode_texts",
    "visible",
]

_FIRST = string.ascii_lowercase
_REST = string.ascii_lowercase + string.digits + "_"
NAME_CODES = 26 * len(_REST) ** 15
"""How many names ``name_of`` numbers."""


def name_of(code: int) -> str:
    """The name ``[a-z][a-z0-9_]{0,15}`` numbered ``code``: 0 is ``"a"``, small codes are
    short names, and distinct codes distinct names (up to 16 characters)."""
    code, first = divmod(code, 26)
    chars = [_FIRST[first]]
    while code and len(chars) < 16:
        code, rest = divmod(code - 1, len(_REST))
        chars.append(_REST[rest])
    return "".join(chars)


def name_codes() -> st.SearchStrategy[int]:
    """The numbers ``name_of`` turns into names: one integer draw a name, as
    ``st.from_regex(r"[a-z][a-z0-9_]{0,15}")`` would draw it."""
    return between(0, NAME_CODES - 1)


def any_texts() -> st.SearchStrategy[str]:
    """Any short text (Hypothesis's own: every plane, control characters, the empty text)."""
    return texts(0, 40)


def visible(text: str) -> str:
    """``text`` if it has a non-space character, else with its first character made ``"0"``:
    non-blank as drawn, never filtered, and shrinking to ``"0"``."""
    return text if text.strip() else "0" + text[1:]


# --- unicode-heavy text ------------------------------------------------------------------------

_ESCAPED = [chr(c) for c in range(0x20)] + ["\x7f", '"', "\\", "/", "\x85", "\u2028", "\u2029"]
_INVISIBLE = ["\ufeff", "\u200b", "\u200c", "\u200d", "\u2060", "\u00a0", "\u00ad"]
_RTL = [
    "שלום עולם",
    "مرحبا بالعالم",
    "اَلسَّلَامُ عَلَيْكُمْ",
    "\u200f",
    "\u202b",
    "\u202e",
    "\u2067",
    "\u2069",
    "\u061c",
]
_EMOJI = [
    "\U0001f600",
    "\U0001f469\u200d\U0001f4bb",  # a ZWJ sequence
    "\U0001f44d\U0001f3fd",  # a skin-tone modifier
    "\U0001f1ef\U0001f1f5",  # a flag: two regional indicators
    "\u2764\ufe0f",  # a variation selector
    "\U0001f9ea",
    "#\ufe0f\u20e3",  # a keycap
]
_SIMPLE = ["a", "fork", " ", "\n", "Ω"]
_ASTRAL = ["\U0001d400\U0001d7ff", "\U0010ffff", "\uffff", "\ufffe", "\ufffd"]
"""Astral letters, the last scalar value and non-characters: valid UTF-8 and JSON."""


def _run(low: int, high: int, most: int, variant: int, mix: int) -> str:
    """1..``most`` characters of the range ``low..high``, chosen by ``variant`` and ``mix``."""
    span = high - low + 1
    return "".join(
        chr(low + (mix * 7919 + variant * 131 + i * 977) % span) for i in range(1 + variant % most)
    )


def _piece(family: int, variant: int, mix: int) -> str:
    """One piece of a family that trips serializers (0, the simplest, is plain text)."""
    if family == 0:
        return _SIMPLE[variant % len(_SIMPLE)]
    if family == 1:
        return _run(0x4E00, 0x9FFF, 4, variant, mix)  # CJK
    if family == 2:
        return _run(0x3040, 0x30FF, 4, variant, mix)  # kana
    if family == 3:
        return _run(0xAC00, 0xD7A3, 3, variant, mix)  # hangul
    if family == 4:
        if variant % 2:
            return _EMOJI[variant // 2 % len(_EMOJI)]
        return chr(0x1F300 + (mix + variant) * 37 % (0x1FAFF - 0x1F300 + 1))
    if family == 5:  # a base letter and combining marks
        return "aeoZ"[variant % 4] + _run(0x300, 0x36F, 3, variant // 4, mix)
    if family == 6:
        return _RTL[variant % len(_RTL)]
    if family == 7:  # control, escaped and invisible characters
        chars = _ESCAPED + _INVISIBLE
        return "".join(
            chars[(variant + i * (mix | 1)) % len(chars)] for i in range(1 + variant % 3)
        )
    return _ASTRAL[variant % len(_ASTRAL)]


_FAMILIES = 9


def unicode_text_of(data: bytes, max_size: int) -> str:
    """The unicode-heavy text two bytes a piece stand for (family, variant), cut to
    ``max_size`` characters; zero bytes are ``"a"`` pieces."""
    reader = ByteReader(data)
    pieces = []
    mix = 0
    for _ in range(len(data) // 2):
        family, variant = reader.byte(), reader.byte()
        mix = (mix * 31 + family * 7 + variant) & 0xFFFF
        pieces.append(_piece(family % _FAMILIES, variant, mix))
    return "".join(pieces)[:max_size]


@cache
def unicode_texts(*, min_size: int = 1, max_size: int = 40) -> st.SearchStrategy[str]:
    """Text made of pieces that often trip serializers: CJK, kana and hangul, emoji (ZWJ
    sequences, modifiers, flags, variation selectors), combining marks, right-to-left text and
    direction marks, control characters and JSON's escaped characters, invisible characters,
    astral letters. Every piece is valid UTF-8 and valid in JSON (no lone surrogates); the text is
    cut to ``max_size`` characters, which may split a sequence (still valid text)."""
    check_sizes("unicode_texts", min_size, max_size)
    check_at_least("unicode_texts", "max_size", max_size, 1)
    return unicode_blobs(min_size).map(lambda d: unicode_text_of(d, max_size))


@cache
def unicode_blobs(min_size: int) -> st.SearchStrategy[bytes]:
    """The bytes a unicode-heavy text of at least ``min_size`` characters decodes from."""
    least = max(min_size, 1)
    return blobs(2 * least, 2 * max(least, 8))


def draw_text(draw: st.DrawFn, heavy: bool, max_size: int = 40) -> str:
    """A text of a message, inside another strategy's draw: unicode-heavy (at least one
    character) or any (``any_texts``, the empty text included), one draw."""
    if heavy:
        return unicode_text_of(draw(unicode_blobs(1)), max_size)
    return draw(any_texts())


def draw_phrase(draw: st.DrawFn, heavy: bool) -> str:
    """A non-blank text of up to 40 characters, unicode-heavy or any, inside another
    strategy's draw: one draw."""
    text = unicode_text_of(draw(unicode_blobs(1)), 40) if heavy else draw(texts(1, 40))
    return visible(text)


@cache
def phrases(heavy: bool) -> st.SearchStrategy[str]:
    """Non-blank text of up to 40 characters, unicode-heavy or Hypothesis's own."""
    return st.composite(draw_phrase)(heavy)


# --- text a Dice makes -------------------------------------------------------------------------

_DICE_CHARS = (
    string.ascii_letters + string.digits + " .,:;-_/" + "\n\t\"\\'" + "éüßñΩЖ" + "\x00\x1f\u2028"
)
_DICE_PIECES = _SIMPLE + _EMOJI + _RTL[:3] + _INVISIBLE + _ASTRAL + ["漢字", "かな", "한글"]


def dice_text(dice: Dice, max_size: int) -> str:
    """Text of up to ``max_size`` characters: mostly ASCII, with escapes, other scripts and
    emoji now and then; empty for seed 0. (Each piece is a chance of 0.15 for a piece of
    ``_DICE_PIECES``, then a pick of it or of ``_DICE_CHARS``.)"""
    size = dice.below(max_size + 1)
    pieces: list[str] = []
    length = 0
    while length < size:
        piece = dice.pick(_DICE_PIECES) if dice.chance(0.15) else dice.pick(_DICE_CHARS)
        pieces.append(piece)
        length += len(piece)
    return "".join(pieces)[:size]


def dice_name(dice: Dice) -> str:
    """A name ``[a-z][a-z0-9_]{0,15}``: ``"a"`` for seed 0. (The first letter, then a chance
    of 0.8 for a tail of up to 15 characters, its length, its characters.)"""
    first = _FIRST[dice.below(26)]
    if not dice.chance(0.8):
        return first
    return first + "".join([dice.pick(_REST) for _ in range(dice.below(16))])
