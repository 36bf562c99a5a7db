"""OpenAI Responses cache markers: read apart from the prefix, rendered where breakpoints put
them (_markers)."""

from __future__ import annotations

import copy

import orjson

from harness.dialects.openai_responses import DIALECT

from .support import BREAK, codex_like, parse


def test_item_ids_and_status_are_bookkeeping_not_prefix() -> None:
    body = codex_like()
    other = copy.deepcopy(body)
    other["input"][0]["id"] = "msg_fresh"
    other["input"][3]["status"] = "completed"
    other["input"][4]["id"] = "fc_other"
    assert DIALECT.parse(body).segments == DIALECT.parse(other).segments
    ref = {"type": "item_reference", "id": "msg_0"}
    assert DIALECT.parse({"input": [ref]}).segments[0].value == ref  # its id is its content
    assert orjson.loads(DIALECT.render(parse(other))) == other  # still sent as they were


def test_breakpoints_with_block_positions_and_ttls() -> None:
    body = codex_like()
    body["input"][5]["prompt_cache_breakpoint"] = {"mode": "explicit", "ttl": "12h"}
    body["prompt_cache_options"] = {"ttl": "30m"}
    marks = DIALECT.parse(body).markers
    # instructions, 2 tools, then one block per content part / other item
    assert [(m.segment, m.block, m.ttl) for m in marks] == [
        ("input[5]", 8, "12h"),
        ("input[6]", 9, "30m"),
    ]
    assert DIALECT.parse(body).cache_markers == ("input[5]", "input[6]")
    assert DIALECT.facts.markers is not None
    assert DIALECT.facts.markers.limit == 4
    assert DIALECT.facts.markers.lookback is None


def test_a_request_ttl_is_every_breakpoint_default() -> None:
    body = codex_like()
    body["prompt_cache_options"] = {"ttl": "12h", "mode": "explicit"}
    assert [m.ttl for m in DIALECT.parse(body).markers] == ["12h"]
    body.pop("prompt_cache_options")
    assert [m.ttl for m in DIALECT.parse(body).markers] == ["30m"]


def test_a_moved_breakpoint_changes_no_segment() -> None:
    body = codex_like()
    moved = copy.deepcopy(body)
    del moved["input"][6]["content"][0]["prompt_cache_breakpoint"]
    moved["input"][1]["content"][0]["prompt_cache_breakpoint"] = BREAK
    a, b = DIALECT.parse(body), DIALECT.parse(moved)
    assert a.segments == b.segments
    assert a.markers != b.markers


def test_a_marked_part_is_unmarked_in_its_segment_and_the_body_is_not_changed() -> None:
    plain = {"type": "message", "role": "user", "content": "hi"}
    marked = {"role": "user", "content": [{"type": "input_text", "text": "a", **BREAK_PART}]}
    segments = DIALECT.parse({"input": [plain, marked]}).segments
    assert segments[0].value is plain  # an unmarked item is its segment as sent
    assert segments[1].value == {"role": "user", "content": [{"type": "input_text", "text": "a"}]}
    assert marked["content"][0]["prompt_cache_breakpoint"] == BREAK


BREAK_PART = {"prompt_cache_breakpoint": BREAK}
