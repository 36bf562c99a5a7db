import pytest
from hypothesis import given, settings

from harness.assemblers import DEFAULT_WORDING, ParentSession, assemble_parent
from harness.model import FunctionCall, Message, Preset, Request, Settings, Text, Tool, freeze
from harness.strategies import requests

from .conftest import Wire

PRESET = Preset(system=("You help.",), tools=(Tool("search"),), settings=Settings(model="m1"))
OTHER = Preset(system=("You help more.",), tools=(Tool("search"), Tool("read")))
U1 = Message("user", (Text("first"),))
M1 = Message("model", (Text("reply"),))
U2 = Message("user", (Text("second"),))
FORK_CALL = FunctionCall("agent", freeze({"directive": "Research A"}), id="f1")
M2 = Message("model", (FORK_CALL,))


def test_parent_request_is_preset_and_history_unchanged() -> None:
    assert assemble_parent(PRESET, [U1, M1, U2]) == Request(PRESET, (U1, M1, U2))


def test_parent_request_refuses_a_broken_history() -> None:
    with pytest.raises(ValueError, match=r"history\[1\] has role 'user'"):
        assemble_parent(PRESET, (U1, U2))
    with pytest.raises(ValueError, match="must be a Preset"):
        assemble_parent(None, (U1,))  # type: ignore[arg-type]


def test_parent_request_renders_its_history_in_every_dialect(wire: Wire) -> None:
    body = wire.body(assemble_parent(PRESET, (U1, M1, U2)))
    for text in (b"first", b"reply", b"second", b"You help."):
        assert text in body


def test_no_snapshot_before_a_turn_completes() -> None:
    session = ParentSession()
    assert session.cache_safe_params is None
    sent = session.record_request(Request(PRESET, (U1,)))
    assert sent.cache_safe_params is None
    assert sent.pending == Request(PRESET, (U1,))


def test_snapshot_is_the_preset_of_the_last_completed_request() -> None:
    first = ParentSession().record_request(Request(PRESET, (U1,))).complete_turn(M1)
    assert first.cache_safe_params is PRESET
    assert first.history == (U1, M1)
    assert first.turns == 1
    waiting = first.record_request(Request(OTHER, (U1, M1, U2)))
    assert waiting.cache_safe_params is PRESET
    assert waiting.complete_turn(M2).cache_safe_params is OTHER


def test_sessions_are_immutable_steps() -> None:
    session = ParentSession()
    session.record_request(Request(PRESET, (U1,)))
    assert session.pending is None
    assert session.history == ()


def test_a_request_must_extend_the_history() -> None:
    session = ParentSession().record_request(Request(PRESET, (U1,))).complete_turn(M1)
    with pytest.raises(ValueError, match="does not start with the session's history"):
        session.record_request(Request(PRESET, (U2,)))
    with pytest.raises(ValueError, match="ending with a user message"):
        session.record_request(Request(PRESET, (U1, M1)))


def test_turn_order_is_enforced() -> None:
    with pytest.raises(ValueError, match="no request is waiting"):
        ParentSession().complete_turn(M1)
    sent = ParentSession().record_request(Request(PRESET, (U1,)))
    with pytest.raises(ValueError, match="already waiting"):
        sent.record_request(Request(PRESET, (U1,)))
    with pytest.raises(ValueError, match="role 'model'"):
        sent.complete_turn(U2)


def test_replay_completes_every_model_turn_and_leaves_a_user_one_pending() -> None:
    session = ParentSession.replay(PRESET, (U1, M1, U2))
    assert session.turns == 1
    assert session.last_request == Request(PRESET, (U1,))
    assert session.pending == Request(PRESET, (U1, M1, U2))
    assert session.cache_safe_params is PRESET


@settings(max_examples=100, deadline=None)
@given(requests())
def test_replay_keeps_the_history_and_snapshots_the_preset(request: Request) -> None:
    session = ParentSession.replay(request.preset, request.history)
    assert session.history == request.history
    turns = sum(m.role == "model" for m in request.history)
    assert session.turns == turns
    assert session.cache_safe_params == (request.preset if turns else None)


def test_session_fork_uses_the_snapshot_verbatim() -> None:
    session = ParentSession.replay(PRESET, (U1, M1, U2, M2))
    result = session.fork("Research A", fork_call=FORK_CALL, wording=DEFAULT_WORDING)
    assert result.request is not None
    assert result.request.preset is PRESET
    assert not result.degraded
    assert result.inherited == (U1, M1, U2, M2)


def test_session_fork_before_any_turn_is_degraded() -> None:
    result = ParentSession().fork("Research A", default_tools=(Tool("search"),))
    assert result.degraded
    assert result.request is not None
    assert result.request.preset.tools == (Tool("search"),)
