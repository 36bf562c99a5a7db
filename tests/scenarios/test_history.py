import pytest
from hypothesis import given, settings

from harness.model import FunctionCall, FunctionResponse, Message, Text, freeze
from harness.scenarios import (
    calls_answered,
    check_history,
    completed_prefix,
    history_ending,
    history_problems,
)
from harness.strategies import histories

CALL = FunctionCall("search", freeze({"q": "x"}), id="c1")
ANSWER = FunctionResponse("search", freeze({"hits": 1}), id="c1")
U = Message("user", (Text("question"),))
M = Message("model", (Text("answer"),))
M_CALLS = Message("model", (Text("looking"), CALL))
U_ANSWERS = Message("user", (ANSWER,))


def test_well_formed_history_has_no_problems() -> None:
    assert history_problems((U, M_CALLS, U_ANSWERS, M)) == ()
    assert history_problems(()) == ()


@pytest.mark.parametrize(
    ("history", "problem"),
    [
        ((M,), "history[0] has role 'model' where 'user' is due"),
        ((U, U), "history[1] has role 'user' where 'model' is due"),
        ((Message("system", (Text("s"),)),), "only system-role messages"),
        ((U, Message("system", (Text("s"),)), U), "history[2] has role 'user' where 'model'"),
        ((U, M_CALLS, U), "history[2] does not answer the calls"),
        ((U, M, U_ANSWERS), "history[2] does not answer the calls"),
        (
            (U, M_CALLS, Message("user", (FunctionResponse("search", freeze({}), id="c2"),))),
            "search#c2",
        ),
        ((U, M_CALLS, Message("user", (ANSWER, ANSWER))), "does not answer"),
        ((Message("user", ()),), "history[0] has no parts"),
        ((U, Message("model", (ANSWER,))), "model message holding function responses"),
        ((Message("user", (CALL,)),), "user message holding function calls"),
        (("not a message",), "history[0] is a str, not a Message"),
    ],
)
def test_problems_are_named(history: tuple[object, ...], problem: str) -> None:
    problems = history_problems(history)
    assert any(problem in p for p in problems), problems


def test_open_calls_at_the_end_are_allowed_unless_asked() -> None:
    assert history_problems((U, M_CALLS)) == ()
    assert history_problems((U, M_CALLS), open_calls=False) == (
        "history[1] ends with calls nobody answered",
    )


def test_check_history_raises_the_first_problem() -> None:
    with pytest.raises(ValueError, match=r"^history: history\[1\] has role 'user'.*\(and 1 more\)"):
        check_history((U, U, M))
    assert check_history([U, M]) == (U, M)


def test_check_history_refuses_a_lone_message() -> None:
    with pytest.raises(ValueError, match="sequence of Message"):
        check_history(U)  # type: ignore[arg-type]


def test_calls_answered_is_one_to_one_by_id_and_name() -> None:
    unnamed = FunctionCall("search", freeze({}), id=None)
    assert calls_answered((CALL, unnamed), (FunctionResponse("search", 1), ANSWER))
    assert not calls_answered((CALL,), (FunctionResponse("read", 1, id="c1"),))
    assert not calls_answered((CALL, CALL), (ANSWER,))


@pytest.mark.parametrize(
    ("history", "ending"),
    [((), "empty"), ((U, M), "model"), ((U, M_CALLS), "model_calls"), ((U, M, U), "user")],
)
def test_history_ending(history: tuple[Message, ...], ending: str) -> None:
    assert history_ending(history) == ending


@pytest.mark.parametrize(
    ("history", "completed"),
    [
        ((), ()),
        ((U,), ()),
        ((U, M), (U, M)),
        ((U, M, U), (U, M)),
        ((U, M, U, M_CALLS), (U, M)),
        ((U, M, U, M_CALLS, U_ANSWERS), (U, M)),
        ((U, M_CALLS, U_ANSWERS, M), (U, M_CALLS, U_ANSWERS, M)),
        ((U, M_CALLS), ()),
    ],
)
def test_completed_prefix_leaves_out_the_turn_in_progress(
    history: tuple[Message, ...], completed: tuple[Message, ...]
) -> None:
    assert completed_prefix(history) == completed


@settings(max_examples=100, deadline=None)
@given(histories())
def test_generated_histories_pass_and_their_completed_prefix_too(
    history: tuple[Message, ...],
) -> None:
    assert history_problems(history) == ()
    done = completed_prefix(history)
    assert history[: len(done)] == done
    assert history_problems(done, open_calls=False) == ()
    assert history_ending(done) in ("empty", "model")


def test_check_history_gives_a_checked_tuple_again_and_walks_a_list_each_time() -> None:
    history = (U, M_CALLS, U_ANSWERS, M)
    assert check_history(history) is history
    assert check_history(history) is history
    listed = [U, M]
    assert check_history(listed) == (U, M)
    listed.append(M)
    with pytest.raises(ValueError, match="history\\[2\\]"):
        check_history(listed)


def test_check_history_of_an_iterator_says_its_first_problem() -> None:
    """An iterator is walked once: its problems are said from that walk."""
    with pytest.raises(ValueError, match=r"^history: history\[1\] has role 'user'"):
        check_history(iter((U, U)))  # type: ignore[arg-type]
