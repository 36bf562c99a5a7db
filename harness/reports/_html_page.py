"""The HTML report's page: skeleton, inline style, escaping, and the parts every section uses.

The page is one self-contained file: its style is inline, it has no script, font, image or
link to anything outside itself, and its Content-Security-Policy forbids fetching anything,
so it opens the same from a disk, an e-mail or a CI artifact, with the network off.

Every text a subject or an agent supplies goes through ``esc`` (``esc_lines`` for a block
of several lines): the terminal controls ``printable`` escapes are escaped first, so a
bidirectional override cannot reorder the page and a lone surrogate cannot break its
encoding, then ``<``, ``>``, ``&`` and quotes are HTML-escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from ._escape import printable, printable_lines

__all__ = ["anchor", "bar", "esc", "esc_lines", "page", "percent", "section"]

_STYLE = """
:root { --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #cf222e; --bad-bg: #ffebe9;
  --known: #9a6700; --known-bg: #fff8c5; --na: #6e7781; --na-bg: #f6f8fa;
  --line: #d0d7de; --text: #1f2328; --muted: #59636e; --kept: #2da44e; --lost: #e5534b;
  --new: #8c959f; --code-bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--text); background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 10px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 6px; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 13px; }
pre { margin: 4px 0; padding: 8px 10px; background: var(--code-bg); border-radius: 6px;
  overflow-x: auto; white-space: pre; }
a { color: #0969da; }
.muted { color: var(--muted); }
.verdict { display: inline-block; padding: 6px 14px; border-radius: 6px; font-weight: 600;
  margin: 8px 0 4px; }
.verdict.code-0 { background: var(--ok-bg); color: var(--ok); }
.verdict.code-1, .verdict.code-3 { background: var(--bad-bg); color: var(--bad); }
.verdict.code-2, .verdict.code-4 { background: var(--known-bg); color: var(--known); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
p.facts { margin: 6px 0; font-size: 14px; }
p.facts .fact { display: inline-block; margin-right: 18px; }
p.failing { margin: 4px 0; font-weight: 600; color: var(--bad); }
p.failing[data-known="true"] { color: var(--known); }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
table.matrix { border-collapse: collapse; margin: 8px 0; }
table.matrix th, table.matrix td { border: 1px solid var(--line); padding: 3px 10px;
  text-align: left; }
table.matrix thead th { background: var(--na-bg); }
table.matrix td.cell { text-align: center; min-width: 110px; font-size: 14px; }
td.pass { background: var(--ok-bg); color: var(--ok); }
td.fail { background: var(--bad-bg); color: var(--bad); font-weight: 600; }
td.expected { background: var(--known-bg); color: var(--known); }
td.na { background: #fff; color: var(--na); }
td.fail a { color: var(--bad); }
.legend span { display: inline-block; padding: 0 8px; margin-right: 6px; border-radius: 4px; }
.legend .pass { background: var(--ok-bg); color: var(--ok); }
.legend .fail { background: var(--bad-bg); color: var(--bad); }
.legend .expected { background: var(--known-bg); color: var(--known); }
.legend .na { border: 1px solid var(--line); color: var(--na); }
.failure { border: 1px solid var(--line); border-left: 5px solid var(--bad); border-radius: 6px;
  padding: 12px 16px; margin: 12px 0; }
.failure.expected { border-left-color: var(--known); }
.failure .reason { font-weight: 600; margin: 2px 0 8px; }
.side { margin: 6px 0; }
.side .label { font-weight: 600; font-size: 13px; }
.side .after { color: var(--bad); background: var(--bad-bg); }
.side .caret { outline: 2px solid var(--bad); }
.bar { display: flex; height: 18px; border-radius: 4px; overflow: hidden;
  background: var(--na-bg); border: 1px solid var(--line); }
.bar > span { display: block; height: 100%; }
.bar .kept { background: var(--kept); }
.bar .lost { background: var(--lost); }
.bar .new { background: var(--new); }
.barline { display: grid; grid-template-columns: 140px 1fr; gap: 10px; align-items: center;
  margin: 6px 0; }
.barline .what { font-size: 13px; color: var(--muted); }
.conversation { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px;
  margin: 10px 0; }
.conversation h3 .role { font-weight: 400; color: var(--muted); }
.badge { display: inline-block; font-size: 12px; padding: 0 7px; border-radius: 10px;
  background: var(--na-bg); border: 1px solid var(--line); margin-right: 6px; }
.badge.parent { background: #ddf4ff; border-color: #54aeff; }
.badge.child { background: #fbefff; border-color: #c297ff; }
.request { display: grid; grid-template-columns: 90px 1fr 380px; gap: 10px;
  align-items: center; margin: 4px 0; font-size: 13px; }
.request .track { width: 100%; }
.swatch { display: inline-block; width: 14px; height: 14px; border-radius: 3px;
  vertical-align: -2px; margin: 0 6px 0 10px; }
.swatch.kept { background: var(--kept); } .swatch.lost { background: var(--lost); }
.swatch.new { background: var(--new); }
details.group { margin: 8px 0 16px; }
details.group > summary { cursor: pointer; font-weight: 600; font-size: 16px; }
ul.index { columns: 3; margin: 4px 0 12px; padding-left: 20px; font-size: 14px; }
ul.plain { padding-left: 20px; margin: 4px 0; }
"""

_ID = re.compile(r"[^A-Za-z0-9_-]+")


def esc(text: object) -> str:
    """``text`` for the page on one line: terminal controls escaped, then HTML-escaped."""
    return html.escape(printable(str(text)), quote=True)


def esc_lines(text: str) -> str:
    """As ``esc``, but line breaks and tabs kept: for a ``<pre>`` block."""
    return html.escape(printable_lines(text), quote=True)


def anchor(*parts: str) -> str:
    """An element id made of ``parts``: letters, digits, ``_`` and ``-`` only."""
    return "-".join(_ID.sub("_", p) for p in parts)


def percent(part: int, whole: int) -> float:
    """``part`` of ``whole`` in percent, between 0 and 100 (0 for an empty whole)."""
    if whole <= 0:
        return 0.0
    return round(min(100.0, max(0.0, 100.0 * part / whole)), 2)


def bar(
    pieces: Iterable[tuple[str, int]], whole: int, *, title: str = "", unit: str = "bytes"
) -> str:
    """A horizontal bar of ``pieces`` (css class, size) out of ``whole``, sizes in ``unit``
    (``bytes`` or ``tokens``, the data attribute they are kept in); each piece's width is its
    share of ``whole`` and the widths together never pass 100%."""
    spans = []
    left = 100.0
    for kind, size in pieces:
        width = min(left, percent(size, whole))
        left = round(left - width, 2)
        spans.append(f'<span class="{kind}" data-{unit}="{size}" style="width:{width:g}%"></span>')
    return f'<div class="bar" title="{esc(title)}">{"".join(spans)}</div>'


def section(heading: str, body: str, *, id_: str) -> str:
    """A ``<section>`` with an ``<h2>`` heading."""
    return f'<section id="{anchor(id_)}"><h2>{esc(heading)}</h2>\n{body}\n</section>'


def page(title: str, body: str) -> str:
    """The whole document: ``body`` inside the page skeleton and its style."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
