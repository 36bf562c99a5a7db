"""Bodies read against their parent (``read_body``'s ``like``): the same verdicts as bodies
read each from its own bytes, on the reference's and every bad subject's outcomes."""

from __future__ import annotations

import pytest

from harness.dialects import get_dialect
from harness.dialects._memo import forget
from harness.prefix import PrefixStream, locate
from harness.prefix._stream import _shared, common_segments
from harness.rules import _body
from harness.rules._context import Context
from harness.rules._engine import _assemble, evaluate

from .bad_subjects import ALL_CASES
from .scenarios import BY_ID
from .support import DIALECTS, REFERENCE

_BAD = {(name, s, d) for name, c in ALL_CASES.items() for s in c.scenarios for d in c.dialects}
_RUNS = sorted(_BAD) + [("reference", s, d) for s in sorted(BY_ID) for d in DIALECTS]


def _subject(name: str) -> object:
    return REFERENCE if name == "reference" else ALL_CASES[name].subject


def _plain(stream: PrefixStream) -> PrefixStream:
    """The stream without a layout: every segment encoded to compare and measure it."""
    return PrefixStream(stream.segments)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_children_read_against_the_parent_compare_by_layout_as_they_do_by_bytes(
    dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every byte shared taken (small bodies too): each body's frames, length, segments it
    shares with the parent and divergence are those of plain streams of its segments."""
    monkeypatch.setattr(_body, "_MIN_SHARED", 0)
    laid_out = 0
    for name, scenario, d in _RUNS:
        if d != dialect:
            continue
        forget()
        outcome = _assemble(_subject(name), BY_ID[scenario], dialect)  # type: ignore[arg-type]
        if outcome.status in ("errored", "skipped"):
            continue
        ctx = Context.read(BY_ID[scenario], get_dialect(dialect), outcome)
        parent = ctx.parent
        for body in (*ctx.children, *ctx.follow_ups, ctx.parent_next):
            if body is None or parent is None:
                continue
            laid_out += _shared(parent.stream, body.stream) is not None
            mine, theirs = _plain(parent.stream), _plain(body.stream)
            assert ctx.shared_segments(body) == common_segments(mine, theirs), (name, scenario)
            assert ctx.divergence(body) == locate(mine, theirs), (name, scenario)
            assert body.stream.length == theirs.length
            assert body.frames == theirs.frames
            assert parent.frames == mine.frames
    assert laid_out  # the fast path is taken


@pytest.mark.parametrize("dialect", DIALECTS)
def test_reports_are_those_of_bodies_each_decoded_whole(
    dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taking every byte shared (the eager thresholds) or none (each body decoded whole):
    every rule's finding, message, evidence and cost the same."""
    runs = [(name, s) for name, s, d in _RUNS if d == dialect]
    found = []
    for least in (0, 1 << 60):
        monkeypatch.setattr(_body, "_MIN_SHARED", least)
        reports = []
        for name, scenario in runs:
            forget()
            outcome = _assemble(_subject(name), BY_ID[scenario], dialect)  # type: ignore[arg-type]
            reports.append(evaluate(BY_ID[scenario], dialect, outcome))
        found.append(reports)
    assert found[0] == found[1]
