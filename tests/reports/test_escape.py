"""Text a subject supplies, made safe for a terminal and for XML (harness/reports/_escape.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from harness.reports._escape import (
    caret_pad,
    display_width,
    printable,
    printable_json,
    printable_lines,
    xml_safe,
)

HOSTILE = (
    "red \x1b[31mALERT\x1b[0m, title \x1b]0;pwned\x07, back\x08\x08, over\rwritten,"
    " csi \x9b2J, bidi \u202eevil\u202c, nul \x00, line\u2028sep, lone \ud800"
)


def test_printable_escapes_every_control_and_keeps_the_text() -> None:
    shown = printable(HOSTILE + "\nnext\tcol")
    assert shown.isprintable()
    assert shown == (
        "red \\x1b[31mALERT\\x1b[0m, title \\x1b]0;pwned\\x07, back\\x08\\x08, over\\rwritten,"
        " csi \\x9b2J, bidi \\u202eevil\\u202c, nul \\x00, line\\u2028sep, lone \\ud800"
        "\\nnext\\tcol"
    )


def test_printable_leaves_ordinary_text_alone() -> None:
    text = 'naïve 日本語 emoji 👍🏽 path C:\\dir "quoted" \\x1b already escaped'
    assert printable(text) is text or printable(text) == text
    assert printable_lines(text) == text


def test_printable_lines_keeps_line_breaks_and_tabs_only() -> None:
    shown = printable_lines("one\x1b[2K\n\ttwo\r\n")
    assert shown == "one\\x1b[2K\n\ttwo\\r\n"


def test_printable_json_is_the_same_json() -> None:
    document = json.dumps({"text": "csi \x9b2J \u202e"}, ensure_ascii=False, indent=2)
    shown = printable_json(document)
    assert not set("\x9b\u202e") & set(shown)
    assert "\n" in shown
    assert json.loads(shown) == json.loads(document)


def test_xml_safe_text_always_parses() -> None:
    element = ET.Element("e", message=xml_safe(HOSTILE))
    element.text = xml_safe(HOSTILE + "\ufffe\uffff")
    parsed = ET.fromstring(ET.tostring(element, encoding="utf-8"))
    assert parsed.get("message", "").startswith("red \\x1b[31mALERT")
    assert "lone \\ud800" in (parsed.text or "")
    assert "\\ufffe\\uffff" in (parsed.text or "")


def test_display_width_counts_terminal_columns() -> None:
    assert display_width("ascii") == 5
    assert display_width("日本語") == 6  # East Asian wide
    assert display_width("ＡＢ") == 4  # fullwidth
    assert display_width("cafe\u0301") == 4  # a combining acute accent takes no column
    assert display_width("👍") == display_width("👍🏽") == 2  # a skin tone joins its emoji
    assert display_width("❤\ufe0f") == 2  # emoji presentation of a narrow symbol
    assert display_width("👨\u200d👩\u200d👧") == 2  # one family glyph
    assert display_width("…") == 1


def test_caret_pad_puts_the_caret_under_the_character() -> None:
    assert caret_pad("abX", 2) == "  "
    assert caret_pad("日本X", 2) == " " * 4
    assert caret_pad("a👍X", 2) == " " * 3
    # the difference is in the combining mark: the caret goes under the letter it marks
    assert caret_pad("cafe\u0301", 4) == " " * 3
    assert caret_pad("x👍🏽", 2) == " "  # the modifier: under its emoji
    assert caret_pad("", 0) == ""
