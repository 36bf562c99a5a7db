"""histories: alternating, call-paired histories that end as asked, long ones built from a
vocabulary and seed, unicode-heavy ones reaching every family of text."""

import itertools

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from harness.generation._histories import _words
from harness.generation._sources import Dice
from harness.model import FunctionCall, FunctionResponse, Message, Text
from harness.scenarios import history_problems
from harness.strategies import histories


def check_alternating_and_paired(history: tuple[Message, ...]) -> None:
    assert history[0].role == "user"
    for a, b in itertools.pairwise(history):
        assert a.role != b.role
    for i, message in enumerate(history):
        calls = message.function_calls
        if message.role == "model" and calls and i + 1 < len(history):
            answers = history[i + 1].function_responses
            assert [(r.id, r.name) for r in answers] == [(c.id, c.name) for c in calls]


@given(histories())
def test_histories_alternate_and_pair_every_call(history: tuple[Message, ...]) -> None:
    check_alternating_and_paired(history)
    ids = [p.id for m in history for p in m.parts if isinstance(p, FunctionCall)]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("ending", ["model", "model_calls", "user"])
@given(data=st.data())
def test_histories_end_as_asked(ending: str, data: st.DataObject) -> None:
    history = data.draw(histories(ending=ending))  # type: ignore[arg-type]
    last = history[-1]
    assert last.role == ("user" if ending == "user" else "model")
    assert bool(last.function_calls) == (ending == "model_calls")
    if ending == "user":
        assert not any(isinstance(p, FunctionResponse) for p in last.parts) or len(history) > 1


QUICK = settings(max_examples=10, suppress_health_check=[HealthCheck.too_slow])
"""Long draws are large: the ci profile's derandomized examples stay, just fewer."""
FOUND = settings(
    max_examples=1000,  # a search, not a property: it stops at the first example found
    derandomize=True,  # the same draws every run, so a rare shape cannot make it flaky
    database=None,
    phases=[Phase.generate],  # the first example found: shrinking long draws costs minutes
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("ending", ["model", "model_calls", "user"])
@QUICK
@given(data=st.data())
def test_long_histories_are_valid_and_end_as_asked(ending: str, data: st.DataObject) -> None:
    history = data.draw(histories(ending=ending, min_turns=100, max_turns=300))  # type: ignore[arg-type]
    assert len(history) >= 199
    assert not history_problems(history)
    check_alternating_and_paired(history)
    ids = [p.id for m in history for p in m.parts if isinstance(p, FunctionCall)]
    assert len(ids) == len(set(ids))
    last = history[-1]
    assert last.role == ("user" if ending == "user" else "model")
    assert bool(last.function_calls) == (ending == "model_calls")


def test_long_histories_reach_hundreds_of_messages_with_parallel_calls() -> None:
    def rich(history: tuple[Message, ...]) -> bool:
        parallel = any(len(m.function_calls) >= 2 for m in history)
        return len(history) >= 500 and parallel

    found = find(histories(min_turns=100, max_turns=300), rich, settings=FOUND)
    assert len(found) >= 500


def test_unicode_heavy_histories_reach_every_family_of_text() -> None:
    """CJK, an emoji ZWJ sequence, a combining mark, RTL text and a control character."""

    def families(text: str) -> set[str]:
        found = set()
        for c in text:
            o = ord(c)
            found.add(
                "cjk"
                if 0x4E00 <= o <= 0x9FFF
                else "emoji"
                if o >= 0x1F300 and o <= 0x1FAFF
                else "combining"
                if 0x300 <= o <= 0x36F
                else "rtl"
                if 0x590 <= o <= 0x6FF
                else "control"
                if o < 0x20
                else "other"
            )
        return found

    every = {"cjk", "emoji", "combining", "rtl", "control"}
    history = find(
        histories(unicode_heavy=True, min_turns=20, max_turns=40),
        lambda h: every <= families("".join(m.text for m in h)),
        settings=FOUND,
    )
    assert not history_problems(history)


SHRINK = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    phases=[Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow],
)
"""Find a failing example and shrink it, as a check shrinks a scenario that failed."""


def test_short_histories_reach_every_part_kind_and_parallel_calls() -> None:
    kinds = {"Text", "Image", "Thinking", "FunctionCall", "FunctionResponse"}

    def rich(history: tuple[Message, ...]) -> bool:
        seen = {type(p).__name__ for m in history for p in m.parts}
        signed = any(getattr(p, "signature", None) for m in history for p in m.parts)
        parallel = any(len(m.function_calls) >= 2 for m in history)
        responses_only = any(
            m.role == "user" and m.parts and all(isinstance(p, FunctionResponse) for p in m.parts)
            for m in history
        )
        return kinds <= seen and signed and parallel and responses_only

    found = find(histories(max_turns=6), rich, settings=FOUND)
    assert not history_problems(found)


def test_a_failure_on_a_history_length_shrinks_to_that_length_and_short_texts() -> None:
    shrunk = find(histories(max_turns=6), lambda h: len(h) >= 7, settings=SHRINK)
    assert len(shrunk) in (7, 8)  # four turns: the simplest ending, the model's, is the longer
    assert all(len(p.text) <= 1 for m in shrunk for p in m.parts if isinstance(p, Text))
    assert not any(m.function_calls for m in shrunk)


def test_a_failure_on_a_text_shrinks_to_that_text_in_a_short_history() -> None:
    def has_newline(history: tuple[Message, ...]) -> bool:
        return any("\n" in p.text for m in history for p in m.parts if isinstance(p, Text))

    shrunk = find(histories(max_turns=6), has_newline, settings=SHRINK)
    assert len(shrunk) <= 2
    texts = [p.text for m in shrunk for p in m.parts if isinstance(p, Text)]
    assert "\n" in texts
    assert all(t in ("", "\n") for t in texts)


def test_a_failure_on_a_long_history_shrinks_to_the_least_long_one() -> None:
    shrunk = find(histories(min_turns=100, max_turns=150), lambda h: len(h) >= 203, settings=SHRINK)
    assert len(shrunk) in (203, 204)
    words = {p.text for m in shrunk for p in m.parts if isinstance(p, Text)}
    assert words <= {"", "0"}


# --- long histories' words, cut from one drawn text -------------------------------------------


def test_a_vocabulary_is_cut_into_words_and_kept_whole_for_seed_0() -> None:
    assert _words("a fork\n", Dice(0)) == ["a fork\n"]
    assert _words("", Dice(0)) == [""]
    counts = set()
    for seed in range(1, 200):
        words = _words("abcdefghij", Dice(seed))
        assert "".join(words) == "abcdefghij"  # cut in order, nothing lost or repeated
        counts.add(len(words))
    assert counts == set(range(1, 9))  # one to eight words
