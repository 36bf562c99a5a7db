"""The HTML report (harness/reports/_html.py) opened in a real headless Chromium: the DOM
after load (matrix cells, failure cards, bar widths, timeline rows), a screenshot, no
network, and what a subject controls shown as text, never as markup.

Chromium is Debian's ``chromium`` package; without it these tests fail, saying how to
install it (tests/reports/browser.py)."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from harness.capture import CheckResult, check_records
from harness.check import (
    CheckRun,
    Expectations,
    KnownFailure,
    ShrunkFailure,
    bundled_fixtures,
    run_check,
)
from harness.model import Message, Preset, Text
from harness.prefix import Window
from harness.reports import capture_html, check_html, write_html
from harness.rules import Cost, Evidence, Finding, ScenarioReport, catalog
from harness.scenarios import load_fixtures
from harness.subjects import SubjectFailure
from tests.capture.simulate import ASK, PRESET, Runtime, call, calls, child_history, results, text
from tests.reports import browser
from tests.reports.browser import (
    WINDOW,
    Node,
    dump_dom,
    layout,
    page_requests,
    parse,
    png_colours,
    png_size,
    screenshot,
)
from tests.rules.bad_subjects import CASES

KNOWN = KnownFailure("*", "byte-prefix", "reordered on purpose", dialect="openai")


@pytest.fixture(scope="module")
def run() -> CheckRun:
    """The tool-order mutant on the fixture corpus in openai, byte-prefix expected to fail."""
    subject = CASES["tool-order"].subject
    fixtures = load_fixtures(bundled_fixtures())
    return run_check(
        subject, fixtures, dialects=["openai"], expectations=Expectations((KNOWN,), "known.toml")
    )


@pytest.fixture(scope="module")
def browser_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("html")


@pytest.fixture(scope="module")
def check_page(run: CheckRun, browser_tmp: Path) -> Path:
    page = browser_tmp / "check.html"
    page.write_text(check_html(run, seed=7), encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def check_dom(check_page: Path, browser_tmp: Path) -> Node:
    return dump_dom(check_page, browser_tmp)


def _cell(dom: Node, rule: str, dialect: str = "openai") -> Node:
    return dom.find("td", data_rule=rule, data_dialect=dialect)


def test_the_header_says_command_subject_seed_and_verdict(check_dom: Node, run: CheckRun) -> None:
    assert check_dom.find("h1").text() == "prefix-harness check"
    verdict = check_dom.find("div", class_="verdict")
    assert verdict.attrs["data-exit"] == str(run.exit_code) == "1"
    assert "a rule failed" in verdict.text()
    failing, known = check_dom.find("header").find_all("p", class_="failing")
    assert failing.text() == "failed: tools-identical, append-only"
    assert [c.text() for c in failing.find_all("code")] == ["tools-identical", "append-only"]
    assert {f.rule for _, f in run.unexpected_failures} == {"tools-identical", "append-only"}
    assert known.text() == "failed as expected: byte-prefix"
    facts = check_dom.find("p", class_="facts").text()
    for shown in ("tool-order", "openai", "7"):
        assert shown in facts
    assert f"{len(run.reports)} (0 generated)" in facts


def test_the_matrix_has_every_rule_and_each_state(check_dom: Node) -> None:
    cells = check_dom.find("table", class_="matrix").find_all("td", class_="cell")
    assert [c.attrs["data-rule"] for c in cells] == [info.id for info in catalog()]
    assert _cell(check_dom, "tools-identical").attrs["data-status"] == "fail"
    assert _cell(check_dom, "byte-prefix").attrs["data-status"] == "expected"
    assert _cell(check_dom, "well-formed").attrs["data-status"] == "pass"
    assert _cell(check_dom, "cache-markers").attrs["data-status"] == "pass"  # implicit caching


def test_a_failing_cell_links_to_its_failures(check_dom: Node) -> None:
    for rule, kind in (("tools-identical", "fail"), ("byte-prefix", "expected")):
        link = _cell(check_dom, rule).find("a").attrs["href"]
        assert link == f"#{kind}-{rule}-openai"
        group = check_dom.find(id=link[1:])
        cards = group.find_all("article")
        assert cards
        assert {c.attrs["data-rule"] for c in cards} == {rule}
    assert not _cell(check_dom, "well-formed").find_all("a")


def test_each_failure_shows_both_sides_and_a_bar_from_its_cost(
    check_dom: Node, run: CheckRun
) -> None:
    cards = check_dom.find("section", id="failures").find_all("article")
    assert len(cards) == len(run.unexpected_failures)
    findings = {(r.scenario_id, f.rule): f for r, f in run.unexpected_failures}
    for card in cards:
        finding = findings[(card.attrs["data-scenario"], card.attrs["data-rule"])]
        assert finding.message in card.find("p", class_="reason").text()
        e = finding.evidence
        assert e is not None
        assert e.window is not None
        assert e.against_window is not None
        sides = card.find_all("div", class_="side")
        assert [s.attrs["data-side"] for s in sides] == [e.against, e.body]
        assert all(s.find_all("span", class_="caret") for s in sides)
        assert [s.find("pre").text() for s in sides] == [e.against_window.text, e.window.text]
        cost = finding.cost
        assert cost is not None
        kept, lost, new = card.find("div", class_="bar").find_all("span")
        shared = e.offset
        assert shared is not None
        whole = max(cost.child_bytes, cost.lost_bytes)
        lost_bytes = min(cost.lost_bytes, whole - shared)  # whole units lost, from the byte on
        assert int(kept.attrs["data-bytes"]) == shared, "shared up to the divergence"
        assert int(lost.attrs["data-bytes"]) == lost_bytes
        assert int(new.attrs["data-bytes"]) == whole - shared - lost_bytes
        widths = [float((s.style("width") or "").rstrip("%")) for s in (kept, lost, new)]
        assert sum(widths) <= 100.0
        assert widths[1] == pytest.approx(100 * lost_bytes / whole, abs=0.01)
        assert f"{shared:,} of {cost.child_bytes:,} bytes of prefix shared" in card.text()


def test_the_page_fetches_nothing(check_dom: Node, check_page: Path) -> None:
    """No element that loads anything, no URL in src or href but the page's own anchors, a
    policy forbidding fetches; Chromium rendered it with every host name unresolvable."""
    assert not check_dom.find_all("script") + check_dom.find_all("img")
    assert not check_dom.find_all("link") + check_dom.find_all("iframe")
    for node in check_dom.iter():
        for key in ("src", "href"):
            if key in node.attrs:
                assert node.attrs[key].startswith("#"), node.attrs
    assert "//" not in check_page.read_text().replace("default-src", "")
    policy = check_dom.find("meta", http_equiv="Content-Security-Policy")
    assert "default-src 'none'" in policy.attrs["content"]


def test_loading_the_page_requests_nothing(check_page: Path, browser_tmp: Path) -> None:
    """Chromium's network log of the page's load holds no request of the page's; a page with
    an image from a host shows that the log would hold one."""
    assert page_requests(check_page, browser_tmp) == []
    control = browser_tmp / "fetches.html"
    control.write_text('<p>x</p><img src="http://example.invalid/x.png">', encoding="utf-8")
    assert page_requests(control, browser_tmp) == ["http://example.invalid/x.png"]


def test_nothing_runs_at_load_the_file_is_the_page(check_dom: Node, check_page: Path) -> None:
    """The page needs no script: the DOM after load is the file as written (cells, cards,
    bars), and there is no script element for a browser with JavaScript off to miss."""
    written = parse(check_page.read_text(encoding="utf-8"))

    def shape(dom: Node) -> list[tuple[str, str, str | None]]:
        return [
            (n.tag, n.attrs.get("class", ""), n.style("width"))
            for n in dom.iter()
            if n.tag in ("td", "article", "span", "details")
        ]

    assert shape(check_dom) == shape(written)
    assert not written.find_all("script") + written.find_all("noscript")


def test_a_screenshot_of_the_page_is_not_blank(check_page: Path, browser_tmp: Path) -> None:
    png = screenshot(check_page, browser_tmp)
    assert png_size(png) == WINDOW
    assert len(png_colours(png)) > 2


_TOPS = """JSON.stringify({
  screen: window.innerHeight,
  verdict: document.querySelector("header .verdict").getBoundingClientRect().top,
  failing: document.querySelector("header p.failing").getBoundingClientRect().top,
  failure: document.querySelector("#failures article").getBoundingClientRect().top,
  matrix: document.querySelector("#matrix").getBoundingClientRect().top,
  timeline: (document.querySelector("#timeline") || {getBoundingClientRect: () => ({top: -1})})
    .getBoundingClientRect().top,
})"""


def _tops(page: Path, tmp: Path) -> dict[str, float]:
    found = layout(page, tmp, _TOPS)
    assert isinstance(found, str)
    tops: dict[str, float] = json.loads(found)
    return tops


def test_the_first_failure_starts_within_the_first_screen(
    check_page: Path, browser_tmp: Path
) -> None:
    """Measured in Chromium: the verdict, the failing rules and the first failure's card are
    on the first screen of a laptop; the matrix comes after the failures."""
    tops = _tops(check_page, browser_tmp)
    assert tops["verdict"] < tops["failing"] < tops["failure"] < tops["screen"], tops
    assert tops["failure"] < tops["matrix"], tops
    assert tops["timeline"] == -1, "a check has no timeline"


# --- a capture: the timeline ------------------------------------------------------------------


@pytest.fixture(scope="module")
def capture() -> CheckResult:
    """A parent forking two children, one dating its system prompt, then two more parent
    turns, the last one long."""
    rt = Runtime()
    forks = calls(call("fork", directive="A: list the files"), call("fork", directive="B: test"))
    turn = rt.send([ASK], forks, mark="parent")
    dated = Preset(system=(*PRESET.system, "Today is 2026-01-01."), tools=PRESET.tools)
    rt.send(child_history([ASK], turn, "A: list the files"), text("done"), preset=dated)
    rt.send(child_history([ASK], turn, "B: test"), text("ok"))
    answered = (ASK, turn, results(turn, "started"))
    reply = rt.send(answered, text("ok"), mark="parent")
    rt.send((*answered, reply, Message("user", (Text("more " * 200),))), text("ok"), mark="parent")
    return check_records(rt.records, subject="sim")


@pytest.fixture(scope="module")
def capture_page(capture: CheckResult, browser_tmp: Path) -> Path:
    page = browser_tmp / "capture.html"
    html = capture_html(capture, command="check-log", exit_code=1, subject="sim.jsonl")
    page.write_text(html, encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def capture_dom(capture_page: Path, browser_tmp: Path) -> Node:
    return dump_dom(capture_page, browser_tmp)


def test_a_captures_failures_come_first_then_the_matrix_then_the_timeline(
    capture_page: Path, browser_tmp: Path
) -> None:
    tops = _tops(capture_page, browser_tmp)
    assert tops["failing"] < tops["failure"] < tops["screen"], tops
    assert tops["failure"] < tops["matrix"] < tops["timeline"], tops


def test_a_failures_bar_and_the_timeline_give_the_same_bytes_shared(
    capture: CheckResult, capture_dom: Node
) -> None:
    """The dated child leaves its parent at one byte: the failure's bar and the timeline's
    bar of that child's first request say the same bytes shared, of the same whole."""
    card = capture_dom.find("article", data_rule="system-identical")
    bar = card.find("div", class_="cost")
    child = capture.checks[0].report.finding("system-identical")
    assert child.cost is not None
    request = _requests(capture_dom)[2]
    kept = request.find("div", class_="bar").find_all("span")[0]
    shared = child.cost.lost_from
    assert int(bar.attrs["data-shared"]) == int(kept.attrs["data-bytes"]) == shared
    assert request.attrs["data-size"] == bar.attrs["data-whole"]


def _requests(dom: Node) -> dict[int, Node]:
    return {int(n.attrs["data-seq"]): n for n in dom.find_all("div", class_="request")}


def test_the_timeline_has_a_lane_per_conversation_with_its_role(capture_dom: Node) -> None:
    lanes = capture_dom.find("section", id="timeline").find_all("div", class_="conversation")
    assert [lane.attrs["data-kind"] for lane in lanes] == ["parent", "child", "child"]
    seqs = [
        [int(r.attrs["data-seq"]) for r in lane.find_all("div", class_="request")] for lane in lanes
    ]
    assert seqs == [[1, 4, 5], [2], [3]]
    assert "fork child of conversation 1, request 1" in lanes[1].find("h3").text()


def test_each_request_bar_shows_what_the_cache_could_serve(capture_dom: Node) -> None:
    rows = _requests(capture_dom)
    size = {seq: int(r.attrs["data-size"]) for seq, r in rows.items()}
    cached = {seq: int(r.attrs["data-cached"]) for seq, r in rows.items()}
    assert cached[1] == 0  # the first request extends nothing
    assert cached[3] == size[1]  # a faithful child: the parent's whole request is served
    assert 0 < cached[2] < size[1]  # the dated child loses the cache from its system prompt
    assert (cached[4], cached[5]) == (size[1], size[4])  # the parent's turns extend each other
    largest = max(size.values())
    for seq, row in rows.items():
        track = row.find("div", class_="track")
        assert float((track.style("width") or "").rstrip("%")) == pytest.approx(
            100 * size[seq] / largest, abs=0.01
        )
        served, new = track.find("div", class_="bar").find_all("span")
        widths = [float((s.style("width") or "").rstrip("%")) for s in (served, new)]
        assert widths[0] == pytest.approx(100 * cached[seq] / size[seq], abs=0.01)
        assert sum(widths) == pytest.approx(100.0, abs=0.02)
        assert int(new.attrs["data-bytes"]) == size[seq] - cached[seq]


def test_the_capture_matrix_and_failures(capture_dom: Node) -> None:
    assert capture_dom.find("h1").text() == "prefix-harness check-log"
    cell = _cell(capture_dom, "system-identical")
    assert cell.attrs["data-status"] == "fail"
    card = capture_dom.find(id="fail-system-identical-openai").find("article")
    assert card.attrs["data-scenario"].startswith("siblings-")


def test_each_check_lists_the_evidence_that_decided_it(
    capture: CheckResult, capture_dom: Node
) -> None:
    """What the text report states under a check (which call started each child, the
    lifecycle) the page lists under it too."""
    (check,) = capture.checks
    assert check.evidence, "the grouping states its evidence"
    item = capture_dom.find("section", id="checks").find("li")
    assert item.text().startswith(f"{check.id}: {check.what}")
    said = [li.text() for li in item.find_all("li", class_="evidence")]
    assert said == list(check.evidence)


# --- escaping ---------------------------------------------------------------------------------

HOSTILE = '<script>document.title="owned"</script><img src=x onerror=1>\u202e\x1b[2K\ud800'


def test_what_a_subject_controls_is_text_not_markup(browser_tmp: Path) -> None:
    evidence = Evidence(
        body="children[0]",
        against="parent",
        offset=3,
        path=HOSTILE,
        reason=HOSTILE,
        window=Window(f"ab{HOSTILE}", 2),
        against_window=Window("abc", 2),
    )
    finding = Finding(
        "tools-identical",
        "fail",
        HOSTILE,
        evidence,
        Cost(900, 800 + 900, lost_bytes=900, child_bytes=800 + 900),
    )
    report = ScenarioReport(HOSTILE, "openai", HOSTILE, (finding,))
    run = CheckRun(HOSTILE, ("openai",), (report,), 0, (), ())
    page = browser_tmp / "hostile.html"
    page.write_bytes(check_html(run).encode())
    dom = dump_dom(page, browser_tmp)
    assert not dom.find_all("script") + dom.find_all("img")
    assert dom.find("title").text().startswith("prefix-harness check: <script>")
    reason = dom.find("p", class_="reason").text()
    assert reason.startswith("<script>document.title=")
    assert "\\u202e\\x1b[2K\\ud800" in reason  # controls shown as escapes
    assert not {"\u202e", "\x1b"} & set(page.read_text())
    (_, lost, _) = dom.find("div", class_="bar").find_all("span")
    assert lost.style("width") == "52.94%"


# --- without a browser: expectations, exit codes, writing ---------------------------------------


def test_a_capture_page_shows_expected_failures_and_the_commands_exit_code(
    capture: CheckResult,
) -> None:
    known = KnownFailure("*", "system-identical", "dated on purpose")
    html = capture_html(
        capture, command="capture", exit_code=3, subject="sim", expected=Expectations((known,))
    )
    dom = parse(html)
    assert dom.find("div", class_="verdict").attrs["data-exit"] == "3"
    assert "crashed, hung" in dom.find("div", class_="verdict").text()
    assert _cell(dom, "system-identical").attrs["data-status"] == "expected"
    group = dom.find("section", id="expected").find(id="expected-system-identical-openai")
    assert "expected failure: dated on purpose" in group.text()


def test_write_html_says_why_a_path_cannot_be_written(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    assert write_html(target, "<p>\u00e9</p>") is None
    assert target.read_bytes() == "<p>\u00e9</p>".encode()
    problem = f"{tmp_path}: the HTML report cannot be written (Is a directory)"
    assert write_html(tmp_path, "x") == problem


def test_a_missing_chromium_fails_saying_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("PATH", "")
    with pytest.raises(
        pytest.fail.Exception, match=r"install it with `apt-get install -y chromium`"
    ):
        browser.chromium()


def test_a_check_page_shows_the_commands_exit_code_and_why(run: CheckRun) -> None:
    html = check_html(run, exit_code=4, notes=["a warning <b>fails</b> the run"])
    verdict = parse(html).find("div", class_="verdict")
    assert verdict.attrs["data-exit"] == "4"
    assert parse(html).find("header").find("li").text() == "a warning <b>fails</b> the run"


def test_a_check_page_shows_subject_failures_and_failing_generated_scenarios() -> None:
    scenario = load_fixtures(bundled_fixtures() / "oneshot.json")[0]
    report = ScenarioReport(scenario.id, "openai", "s", (Finding("tools-identical", "fail", "x"),))
    crash = SubjectFailure.of("crash", "gen-1", "it <exited>", stderr_tail="Traceback\n  boom\n")
    shrunk = ShrunkFailure("openai", scenario, report)
    run = CheckRun("s", ("openai",), (report,), 1, (shrunk,), (crash,))
    dom = parse(check_html(run))
    failures = dom.find("section", id="subject-failures")
    assert "it <exited>" in failures.text()
    assert failures.find("pre").text() == "Traceback\n  boom"
    assert dom.find("div", class_="verdict").attrs["data-exit"] == "3"
    (folded,) = dom.find("section", id="shrunk").find_all("details")
    assert "minimal failing generated scenario (openai; fails tools-identical)" in folded.text()
    fixture = orjson.loads(folded.find("pre").text())
    assert fixture["scenarios"][0]["id"] == scenario.id
