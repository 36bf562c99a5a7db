"""The HTML report's capture timeline (harness/reports/_html_timeline.py): each request
measured against the request it extends, by prefix-stream bytes, and drawn as a bar."""

from __future__ import annotations

import orjson

from harness.capture import Observed, check_records, check_requests
from harness.dialects import get_dialect
from harness.model import Preset, Text
from harness.prefix import PrefixStream, rendered_stream
from harness.reports._html_timeline import lanes, shared_bytes, timeline
from tests.capture.simulate import ASK, PRESET, Runtime, call, calls, child_history, results, text
from tests.capture.simulate import user as user_message
from tests.reports.browser import parse


def _stream(body: bytes) -> PrefixStream:
    return rendered_stream(get_dialect("openai").parse(orjson.loads(body)))


def test_shared_bytes_is_the_common_prefix_of_two_streams() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("read_file", path="a")))
    rt.send((ASK, turn, results(turn, "text")), text("ok"))
    first, second = (_stream(r.body or b"") for r in rt.records)
    assert shared_bytes(first, second) == first.length  # an append-only next turn
    assert shared_bytes(second, first) == first.length  # never more than the shorter holds
    assert shared_bytes(first, first) == first.length
    dated = Preset(system=("You are a careful agent. Today is Monday.",), tools=PRESET.tools)
    other = Runtime()
    other.send([ASK], text("ok"), preset=dated)
    changed = _stream(other.records[0].body or b"")
    assert 0 < shared_bytes(first, changed) < first.length


def test_a_spawned_childs_first_request_is_measured_against_the_spawning_request() -> None:
    rt = Runtime()
    prompt = "Summarize the README in one line."
    turn = rt.send([ASK], calls(call("delegate", prompt=prompt)), mark="parent")
    rt.send([user_message(Text(prompt))], text("It explains the setup."))
    rt.send((ASK, turn, results(turn, "It explains the setup.")), text("Done."), mark="parent")
    (parent, spawned) = lanes(check_records(rt.records))
    assert (parent.kind, spawned.kind) == ("parent", "child")
    assert [(m.seq, m.base) for m in parent.requests] == [(1, None), (3, 1)]
    ((seq, base),) = [(m.seq, m.base) for m in spawned.requests]
    assert (seq, base) == (2, 1)
    first, child = (_stream(r.body or b"") for r in rt.records[:2])
    assert spawned.requests[0].cached == shared_bytes(first, child)
    assert 0 < spawned.requests[0].cached < child.length  # system and tools, not the history
    assert parent.requests[0].new == parent.requests[0].size


def test_a_fork_childs_first_request_is_measured_against_its_parent() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A: list the files")), mark="parent")
    rt.send(child_history([ASK], turn, "A: list the files"), text("done"))
    parent, child = lanes(check_records(rt.records))
    (measured,) = child.requests
    assert measured.base == 1
    assert measured.cached == parent.requests[0].size
    assert measured.new == (measured.size or 0) - measured.cached
    assert "fork child of conversation 1" in child.role


def test_a_body_that_cannot_be_measured_is_drawn_without_a_size() -> None:
    rt = Runtime()
    rt.send([ASK], text("ok"))
    body = rt.records[0].body or b""
    request = get_dialect("openai").parse(orjson.loads(body)).request
    result = check_requests([Observed(1, "openai", b"{not json", request)])
    (lane,) = lanes(result)
    assert (lane.requests[0].size, lane.requests[0].cached) == (None, 0)
    row = parse(timeline(result)).find("div", class_="request")
    assert row.attrs["data-size"] == ""
    assert "9 bytes of body; its prefix cannot be read" in row.text()


def test_the_timeline_sums_up_what_the_cache_could_serve() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("read_file", path="a")), mark="parent")
    rt.send((ASK, turn, results(turn, "text")), text("ok"), mark="parent")
    result = check_records(rt.records)
    (lane,) = lanes(result)
    dom = parse(timeline(result))
    total = dom.find("p", class_="total")
    sizes = [m.size or 0 for m in lane.requests]
    assert int(total.attrs["data-total"]) == sum(sizes)
    assert int(total.attrs["data-served"]) == lane.requests[1].cached == sizes[0]
    assert "2 requests" in total.text()
    first, second = dom.find_all("div", class_="request")
    widths = [
        float((r.find("div", class_="track").style("width") or "")[:-1]) for r in (first, second)
    ]
    assert widths == [round(100 * sizes[0] / sizes[1], 2), 100.0]


def test_no_request_is_said_in_words() -> None:
    result = check_requests(())
    assert "no model call was recorded" in timeline(result)
