import pytest
from hypothesis import given, settings

from harness.assemblers import assemble_spawn, follow_up
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Text,
    Tool,
    freeze,
)
from harness.strategies import histories

from .conftest import Wire

PRESET = Preset(system=("You research.",), tools=(Tool("search"),))
PROMPT = "Find the founding year of the studio that produced the original 2011 film Aurora Run."
TASK = FunctionCall("Task", freeze({"prompt": PROMPT}), id="t1")
PARENT = (
    Message("user", (Text("Which year was the original Aurora Run's studio founded?"),)),
    Message("model", (TASK,)),
)


def test_child_starts_from_the_prompt_alone() -> None:
    spawn = assemble_spawn(PROMPT, preset=PRESET, call=TASK)
    assert spawn.request == Request(PRESET, (Message("user", (Text(PROMPT),)),))
    assert spawn.call is TASK


@settings(max_examples=100, deadline=None)
@given(histories(ending="model_calls"))
def test_no_parent_message_reaches_the_child(parent: tuple[Message, ...]) -> None:
    call = parent[-1].function_calls[0]
    spawn = assemble_spawn("Look into it.", preset=PRESET, call=call)
    assert len(spawn.request.history) == 1
    assert not set(parent) & set(spawn.request.history)


def test_parent_grows_by_one_call_and_one_result_whatever_the_child_did() -> None:
    spawn = assemble_spawn(PROMPT, preset=PRESET, call=TASK)
    child = spawn.request
    for k in range(4):
        call = FunctionCall("search", freeze({"q": str(k)}), id=f"s{k}")
        child = follow_up(
            child,
            Message("model", (call,)),
            Message("user", (FunctionResponse("search", "x" * 100, id=f"s{k}"),)),
        )
    assert len(child.history) == 9
    grown = (*PARENT, spawn.result_message("Northlight Pictures — founded in 1987."))
    calls = [c for m in grown for c in m.function_calls]
    results = [r for m in grown for r in m.function_responses]
    assert calls == [TASK]
    assert results == [FunctionResponse("Task", "Northlight Pictures — founded in 1987.", id="t1")]
    assert len(grown) == len(PARENT) + 1


def test_spawn_needs_a_prompt_and_the_delegating_call() -> None:
    with pytest.raises(ValueError, match="non-empty delegation prompt"):
        assemble_spawn(" ", preset=PRESET, call=TASK)
    with pytest.raises(ValueError, match="FunctionCall"):
        assemble_spawn(PROMPT, preset=PRESET, call=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="answer is a string"):
        assemble_spawn(PROMPT, preset=PRESET, call=TASK).result_message(None)  # type: ignore[arg-type]


def test_rendered_child_holds_one_message_and_none_of_the_parents(wire: Wire) -> None:
    spawn = assemble_spawn(PROMPT, preset=PRESET, call=TASK)
    body = wire.body(spawn.request)
    assert b"Which year" not in body
    history_segments = [
        name
        for name, _ in wire.segments(spawn.request)
        if name.startswith(("contents", "messages"))
    ]
    system_messages = 1 if wire.name == "openai" else 0
    assert len(history_segments) == 1 + system_messages
