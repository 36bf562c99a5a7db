"""Text: names from one number, non-blank phrases, unicode-heavy text decoded from bytes,
text a Dice makes."""

import re

import orjson
from hypothesis import given, settings

from harness.generation._sources import Dice
from harness.generation._text import (
    _DICE_PIECES,
    dice_name,
    dice_text,
    name_codes,
    name_of,
    phrases,
    unicode_text_of,
    visible,
)
from harness.strategies import unicode_texts


@settings(max_examples=50)
@given(unicode_texts(min_size=2, max_size=30))
def test_unicode_texts_are_valid_json_text_of_the_size_asked(text: str) -> None:
    assert 2 <= len(text) <= 30
    assert orjson.loads(orjson.dumps(text)) == text  # no lone surrogate, valid UTF-8


def test_names_are_numbered_short_first_and_all_distinct() -> None:
    assert [name_of(c) for c in (0, 1, 25, 26, 27)] == ["a", "b", "z", "aa", "ba"]
    names = [name_of(c) for c in range(20000)]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]{0,15}", n) for n in names)
    assert max(len(name_of(c)) for c in (2**60, 2**80, 26 * 37**15 - 1)) <= 16


@given(name_codes().map(name_of))
def test_drawn_names_are_names(name: str) -> None:
    assert re.fullmatch(r"[a-z][a-z0-9_]{0,15}", name)


def test_a_blank_text_is_made_visible_and_any_other_kept() -> None:
    assert visible(" ") == "0"
    assert visible("\n\t ") == "0\t "
    assert visible(" a ") == " a "
    assert visible("\u200b") == "\u200b"  # not whitespace to str.strip: already non-blank


@given(phrases(False))
def test_phrases_are_never_blank(text: str) -> None:
    assert text.strip()
    assert len(text) <= 40


@given(phrases(True))
def test_unicode_heavy_phrases_are_never_blank(text: str) -> None:
    assert text.strip()
    assert orjson.loads(orjson.dumps(text)) == text


def test_zero_bytes_are_plain_pieces_and_every_family_is_reachable() -> None:
    assert unicode_text_of(b"", 40) == ""
    assert unicode_text_of(b"\0\0\0\0", 40) == "aa"
    texts = [
        unicode_text_of(bytes([family, variant]), 40)
        for family in range(9)
        for variant in range(0, 256, 5)
    ]
    joined = "".join(texts)
    assert any(0x4E00 <= ord(c) <= 0x9FFF for c in joined)  # CJK
    assert any(0x1F300 <= ord(c) <= 0x1FAFF for c in joined)  # emoji
    assert any(0x300 <= ord(c) <= 0x36F for c in joined)  # combining marks
    assert any(0x590 <= ord(c) <= 0x6FF for c in joined)  # right-to-left
    assert any(ord(c) < 0x20 for c in joined)  # control characters
    assert all(orjson.loads(orjson.dumps(t)) == t for t in texts)


def test_dice_text_is_empty_for_seed_0_and_varied_otherwise() -> None:
    assert dice_text(Dice(0), 40) == ""
    assert dice_name(Dice(0)) == "a"
    made = [dice_text(Dice(seed), 40) for seed in range(1, 200)]
    assert all(len(t) <= 40 for t in made)
    assert any(not t.isascii() for t in made)
    assert len(set(made)) > 150
    assert all(re.fullmatch(r"[a-z][a-z0-9_]{0,15}", dice_name(Dice(s))) for s in range(1, 200))


def test_dice_text_reaches_pieces_longer_than_a_character() -> None:
    made = "".join(dice_text(Dice(seed), 320) for seed in range(1, 100))
    assert any(piece in made for piece in _DICE_PIECES if len(piece) > 1)
