"""Text from a subject made safe to print or to put in an XML report.

A subject's messages, scenario ids and stderr are its own characters. Printed raw on a
terminal, an ANSI escape (``\\x1b[2K``), a carriage return, a backspace or an OSC sequence
can recolour, overwrite or retitle the terminal, and so hide or forge a verdict line; a
bidirectional override can reorder what is shown. ``printable`` turns every such character
into a visible escape (``\\x1b``, ``\\r``, ``\\u202e``) and leaves all other text as it was;
``printable_lines`` does the same but keeps line breaks and tabs, for blocks of several lines
such as a stderr tail; ``printable_json`` escapes them as JSON does, for a document printed to
be pasted into a file.

XML 1.0 forbids most C0 controls even as character references, and lone surrogates cannot be
encoded at all: ``xml_safe`` escapes exactly those, so that a JUnit report always parses.
Backslashes are left alone in every case (paths and JSON escapes stay as they were), so an
escape is for a person to read, not a lossless encoding.

A caret printed under a window of text must count terminal columns, not characters: East
Asian wide and fullwidth characters and emoji take two, combining marks and joiners none.
``display_width`` counts them (``unicodedata``, no table of its own) and ``caret_pad`` gives
the spaces that put a ``^`` under a given character.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "caret_pad",
    "display_width",
    "printable",
    "printable_json",
    "printable_lines",
    "xml_safe",
]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_TERMINAL_CONTROLS = (
    "\x00-\x1f\x7f-\x9f"  # C0, DEL, C1 (ESC, CSI, OSC, backspace, carriage return, ...)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional marks and overrides
    "\u2028\u2029"  # line and paragraph separators
    "\ud800-\udfff"  # lone surrogates (from undecodable bytes): not text at all
)
_UNPRINTABLE = re.compile(f"[{_TERMINAL_CONTROLS}]")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` on one line with every terminal control escaped: ``"a\\x1b[31mb\\n"`` ->
    ``"a\\\\x1b[31mb\\\\n"``. Text without any is returned as it is."""
    return _UNPRINTABLE.sub(_escape, text)


def printable_lines(text: str) -> str:
    """As ``printable``, but line feeds and tabs are kept: for text of several lines."""
    return _UNPRINTABLE.sub(lambda m: m.group() if m.group() in "\n\t" else _escape(m), text)


def printable_json(document: str) -> str:
    """A JSON document with every terminal control inside its strings written as a ``\\uXXXX``
    escape, so it is the same JSON and prints safely (its line breaks are its layout; JSON
    encoders already escape C0 controls inside strings)."""
    return _UNPRINTABLE.sub(
        lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}", document
    )


def xml_safe(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold (C0 controls other than tab, line feed
    and carriage return; lone surrogates; U+FFFE and U+FFFF) escaped as in ``printable``."""
    return _NOT_XML.sub(_escape, text)


_ZWJ = "\u200d"
_EMOJI_PRESENTATION = "\ufe0f"
_SKIN_TONES = range(0x1F3FB, 0x1F400)


def _width(char: str) -> int:
    """Columns of one character on its own: 0 for a combining mark or a format character
    (joiners, variation selectors), 2 for East Asian wide or fullwidth (most emoji), else 1."""
    if unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _widths(text: str) -> list[int]:
    """The columns of each character of ``text`` where it stands: a skin-tone modifier or a
    character after a zero-width joiner joins the emoji before it (no column of its own); an
    emoji presentation selector widens a narrow symbol before it to two."""
    widths: list[int] = []
    for i, char in enumerate(text):
        previous = text[i - 1] if i else ""
        if previous and (previous == _ZWJ or ord(char) in _SKIN_TONES):
            widths.append(0)
        elif char == _EMOJI_PRESENTATION:
            base = next((w for w in reversed(widths) if w), 0)
            widths.append(1 if base == 1 else 0)
        else:
            widths.append(_width(char))
    return widths


def display_width(text: str) -> int:
    """The terminal columns ``text`` takes (one line, controls already escaped): ``"ab"`` 2,
    ``"日本"`` 4, ``"e\u0301"`` 1, ``"👍🏽"`` 2, ``"❤\ufe0f"`` 2."""
    return sum(_widths(text))


def caret_pad(text: str, index: int) -> str:
    """The spaces that put a caret printed after them under ``text[index]`` (a character
    index): a difference in a combining mark, a joiner or a modifier is marked under the
    character it belongs to."""
    widths = _widths(text)
    while 0 < index < len(text) and widths[index] == 0:
        index -= 1
    return " " * sum(widths[:index])
