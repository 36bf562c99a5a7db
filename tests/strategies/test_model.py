import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.model import FunctionCall, FunctionResponse, Message, Request
from harness.strategies import histories, presets, requests, tools


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


@given(requests())
def test_requests_call_only_declared_tools(request: Request) -> None:
    names = {t.name for t in request.preset.tools} or {"tool"}
    for message in request.history:
        assert {c.name for c in message.function_calls} <= names


@given(tools(min_size=2, max_size=4))
def test_tools_have_unique_names(declared: tuple) -> None:  # type: ignore[type-arg]
    assert 2 <= len(declared) <= 4
    assert len({t.name for t in declared}) == len(declared)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: tools(min_size=3, max_size=1), "max_size=1 is below min_size=3"),
        (lambda: tools(min_size=-1), "min_size=-1 must be at least 0"),
        (lambda: presets(min_tools=5, max_tools=2), "max_size=2 is below min_size=5"),
        (lambda: histories(ending="sideways").validate(), "ending='sideways' is not one of"),
        (lambda: histories(min_turns=0).validate(), "min_turns must be at least 1"),
    ],
)
def test_bad_arguments_fail_early_and_clearly(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        make()
