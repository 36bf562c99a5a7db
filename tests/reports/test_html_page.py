"""The HTML page's parts (harness/reports/_html_page.py): escaping, ids, percentages, bars
whose widths never pass 100%, and a skeleton that fetches nothing."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from harness.reports._html_page import anchor, bar, esc, esc_lines, page, percent, section
from tests.reports.browser import parse


def test_esc_escapes_markup_and_terminal_controls() -> None:
    assert esc('<a href="x">&</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert esc("it's") == "it&#x27;s"
    assert esc("a\x1b[31mb\u202ec\ud800\n") == "a\\x1b[31mb\\u202ec\\ud800\\n"
    assert esc(42) == "42"


def test_esc_lines_keeps_line_breaks_and_tabs() -> None:
    assert esc_lines("a\n\tb <c>\r") == "a\n\tb &lt;c&gt;\\r"


def test_anchor_keeps_only_safe_characters() -> None:
    assert anchor("fail", "tools-identical", "openai") == "fail-tools-identical-openai"
    assert anchor("x", '"><script>', "a b") == "x-_script_-a_b"


def test_percent_is_between_0_and_100() -> None:
    assert percent(1, 3) == 33.33
    assert percent(5, 4) == 100.0
    assert percent(-1, 4) == 0.0
    assert percent(3, 0) == 0.0


def _widths(html: str) -> list[float]:
    spans = parse(html).find_all("span")
    return [float((s.style("width") or "").rstrip("%")) for s in spans]


@given(st.lists(st.integers(0, 10**9), max_size=4), st.integers(0, 10**9))
@example([2, 2, 2], 3)  # pieces summing past the whole
@example([1, 1, 1], 3)  # thirds that round up
def test_bar_widths_never_pass_100_percent(sizes: list[int], whole: int) -> None:
    widths = _widths(bar([("kept", s) for s in sizes], whole))
    assert len(widths) == len(sizes)
    assert all(0.0 <= w <= 100.0 for w in widths)
    assert sum(widths) <= 100.0 + 1e-9


def test_bar_widths_follow_the_bytes() -> None:
    html = bar([("kept", 610), ("lost", 1106)], 1716, title='<"x">')
    assert _widths(html) == [35.55, 64.45]
    node = parse(html).find("div", class_="bar")
    assert node.attrs["title"] == '<"x">'
    assert [s.attrs["data-bytes"] for s in node.find_all("span")] == ["610", "1106"]


def test_the_page_skeleton_forbids_fetching_and_escapes_its_title() -> None:
    document = page("a <b>", section("Head <1>", "<p>body</p>", id_="my id"))
    dom = parse(document)
    assert document.startswith("<!DOCTYPE html>")
    assert dom.find("title").text() == "a <b>"
    policy = dom.find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert policy == "default-src 'none'; style-src 'unsafe-inline'"
    assert dom.find("section", id="my_id").find("h2").text() == "Head <1>"
    assert "http" not in document.lower().replace("http-equiv", "")
    assert "url(" not in document
    assert "@import" not in document
