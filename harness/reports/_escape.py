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
"""

from __future__ import annotations

import re

__all__ = ["printable", "printable_json", "printable_lines", "xml_safe"]

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
