import orjson
import pytest
from hypothesis import given, settings

from harness.assemblers import (
    DEFAULT_WORDING,
    ColdResume,
    ContinuableChild,
    Divergence,
    StructuredOutput,
    assemble_continuable,
    follow_up,
)
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Settings,
    Text,
    Tool,
    freeze,
)
from harness.scenarios import SEND_MESSAGE_TOOL, completed_prefix, with_send_message
from harness.strategies import requests

from .conftest import Wire

PRESET = with_send_message(
    Preset(
        system=("You are agent alpha.",),
        tools=(Tool("search", "Search.", freeze({"type": "object"})), Tool("agent")),
        settings=Settings(model="m1"),
    )
)
U1 = Message("user", (Text("Plan the release."),))
M1 = Message("model", (Text("Planned."),))
U2 = Message("user", (Text("Now split it."),))
FORK = FunctionCall("agent", freeze({"task": "notes"}), id="f1")
M2 = Message("model", (FORK,))
PARENT = (U1, M1, U2, M2)
RESULT = StructuredOutput(
    Tool("final_answer", "Answer.", freeze({"type": "object"})), "Answer in JSON."
)


def child(history: tuple[Message, ...] = PARENT, **kw: object) -> ContinuableChild:
    kw.setdefault("preset", PRESET)
    kw.setdefault("parent_id", "agent-1")
    return assemble_continuable(history, "Write the notes.", **kw)  # type: ignore[arg-type]


def test_seed_is_the_completed_turns_then_the_task() -> None:
    made = child()
    assert made.seed == (U1, M1)
    assert made.request.history[:2] == (U1, M1)
    assert made.request.history[2] == Message("user", (Text(made.task_message),))
    assert len(made.request.history) == 3


@pytest.mark.parametrize(
    ("history", "seed"),
    [((U1, M1), (U1, M1)), ((U1, M1, U2), (U1, M1)), ((U1,), ()), ((), ())],
)
def test_an_in_progress_turn_is_left_out(
    history: tuple[Message, ...], seed: tuple[Message, ...]
) -> None:
    assert child(history).seed == seed


def test_the_child_repeats_the_parent_preset_byte_for_byte() -> None:
    made = child()
    assert made.request.preset == PRESET
    assert made.divergences == ()


def test_the_task_carries_the_json_encoded_parent_id_and_send_message() -> None:
    made = child(parent_id='alpha "1"')
    encoded = orjson.dumps('alpha "1"').decode()
    assert made.guided
    assert made.task_message.startswith("Write the notes.\n\n")
    assert made.task_message.endswith(DEFAULT_WORDING.guidance_for('alpha "1"'))
    assert f'send_message({{"agent_id": {encoded}, "message": ' in made.task_message
    assert all(encoded not in block for block in made.request.preset.system)


def test_filtering_out_send_message_removes_schema_and_guidance() -> None:
    made = child(resume=ColdResume(tool_filter=("search", "agent")))
    assert [t.name for t in made.request.preset.tools] == ["search", "agent"]
    assert not made.guided
    assert made.task_message == "Write the notes."
    assert "send_message" not in made.request.history[-1].text
    assert [d.name for d in made.divergences] == ["tool-filter"]


def test_a_filter_keeping_send_message_keeps_the_guidance_and_the_parent_order() -> None:
    made = child(resume=ColdResume(tool_filter=("send_message", "search")))
    assert made.request.preset.tools == (PRESET.tools[0], SEND_MESSAGE_TOOL)
    assert made.guided
    assert made.divergences == (Divergence("tool-filter", "restored filter removes ['agent']"),)


def test_a_filter_that_removes_nothing_is_no_divergence() -> None:
    assert (
        child(resume=ColdResume(tool_filter=("agent", "search", "send_message"))).divergences == ()
    )


def test_a_filter_naming_an_unknown_tool_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown tools \['shell'\]"):
        child(resume=ColdResume(tool_filter=("search", "shell")))
    with pytest.raises(ValueError, match="tuple of non-empty strings"):
        ColdResume(tool_filter="search")  # type: ignore[arg-type]


def test_a_restored_persona_replaces_the_system_and_is_flagged() -> None:
    made = child(resume=ColdResume(persona=("You are the notes writer.",)))
    assert made.request.preset.system == ("You are the notes writer.",)
    assert made.request.preset.tools == PRESET.tools
    assert [d.name for d in made.divergences] == ["persona"]
    assert child(resume=ColdResume(persona=PRESET.system)).divergences == ()


def test_structured_output_adds_a_child_only_tool_and_section() -> None:
    made = child(structured_output=RESULT)
    assert made.request.preset.tools == (*PRESET.tools, RESULT.tool)
    assert made.request.preset.system == (*PRESET.system, "Answer in JSON.")
    assert [d.name for d in made.divergences] == ["structured-output"]


def test_structured_output_may_not_shadow_a_tool() -> None:
    with pytest.raises(ValueError, match="already declared"):
        child(structured_output=StructuredOutput(Tool("search"), "x"))
    with pytest.raises(ValueError, match="section must not be empty"):
        child(structured_output=StructuredOutput(Tool("other"), " "))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"preset": Preset(tools=(Tool("search"),))}, "declares no 'send_message' tool"),
        ({"parent_id": ""}, "parent_id must be a non-empty string"),
        ({"history": (U1, U2)}, r"history\[1\] has role 'user'"),
    ],
)
def test_bad_arguments_are_refused(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        child(**change)  # type: ignore[arg-type]


def test_an_empty_task_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty task"):
        assemble_continuable(PARENT, "", preset=PRESET, parent_id="a")


def test_follow_ups_extend_the_previous_request_append_only() -> None:
    made = child()
    call = FunctionCall("search", freeze({"q": "notes"}), id="s1")
    second = made.follow_up(
        Message("model", (call,)), Message("user", (FunctionResponse("search", "ok", id="s1"),))
    )
    assert second.history[: len(made.request.history)] == made.request.history
    assert second.preset == made.request.preset
    third = follow_up(second, Message("model", (Text("Done?"),)), Message("user", (Text("Yes."),)))
    assert third.history[: len(second.history)] == second.history
    assert len(third.history) == len(second.history) + 2


def test_a_follow_up_must_answer_the_replys_calls() -> None:
    made = child()
    call = FunctionCall("search", freeze({}), id="s1")
    with pytest.raises(ValueError, match="answer each call"):
        made.follow_up(Message("model", (call,)), Message("user", (Text("no answer"),)))
    with pytest.raises(ValueError, match="role 'model'"):
        made.follow_up(Message("user", (Text("x"),)), Message("user", (Text("y"),)))
    with pytest.raises(ValueError, match="end with the user message"):
        follow_up(Request(PRESET, (U1, M1)), M1, U2)


# --- on the wire --------------------------------------------------------------------------


def _tool_segments(wire: Wire, request: Request) -> list[tuple[str, bytes]]:
    return [(n, v) for n, v in wire.segments(request) if n.startswith("tools")]


def test_parent_and_child_declare_byte_identical_tools(wire: Wire) -> None:
    parent = Request(PRESET, PARENT)
    made = child()
    assert _tool_segments(wire, made.request) == _tool_segments(wire, parent)
    assert wire.starts_with(made.request, Request(PRESET, made.seed))


def test_divergences_show_on_the_wire(wire: Wire) -> None:
    parent = Request(PRESET, PARENT)
    for resume in (ColdResume(tool_filter=("search",)), None):
        made = child(resume=resume, structured_output=None if resume else RESULT)
        assert made.divergences
        assert _tool_segments(wire, made.request) != _tool_segments(wire, parent)
        assert not wire.starts_with(made.request, Request(PRESET, made.seed))


@settings(max_examples=100, deadline=None)
@given(parent=requests())
def test_generated_children_keep_the_parent_prefix_in_every_dialect(
    wire: Wire, parent: Request
) -> None:
    preset = with_send_message(parent.preset)
    made = assemble_continuable(parent.history, "Go on.", preset=preset, parent_id="p")
    assert made.seed == completed_prefix(parent.history)
    assert made.request.history[-1].text.startswith("Go on.\n\n")
    assert wire.starts_with(made.request, Request(preset, made.seed))
    assert _tool_segments(wire, made.request) == _tool_segments(
        wire, Request(preset, parent.history)
    )
