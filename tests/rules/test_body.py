import orjson
import pytest

from harness.dialects import Dialect, get_dialect
from harness.model import FunctionCall, FunctionResponse, Message, Preset, Request, Text, freeze
from harness.rules._body import Body, message_frame, message_frames, message_starts, read_body

from .support import REFERENCE, outcome

OPENAI = get_dialect("openai")


def test_a_reference_child_reads_with_stream_request_and_families() -> None:
    raw = outcome(REFERENCE, "fork-model-calls", "anthropic").children[0]
    body = read_body("children[0]", raw, get_dialect("anthropic"))
    assert isinstance(body, Body)
    assert body.label == "children[0]"
    units = body.parsed.cache.units
    assert len(body.families) == len(body.frames) == len(units)  # the rendered prefix
    assert [f.name for f in body.frames] == [u.name for u in units]
    assert body.history_start == 5  # three tools, two system blocks
    assert [f.name for f in body.frames_of("system")] == ["system[0]", "system[1]"]
    assert body.frame_index("messages[0]") == 5  # a message's header, then its blocks
    assert body.frame_index("messages[0].content[0]") == 6
    assert body.frame_index("messages[99]") is None
    assert body.request.history[-1].text == "Begin."


def test_the_byte_view_frames_the_segments_as_sent() -> None:
    raw = outcome(REFERENCE, "fork-model-calls", "anthropic").children[0]
    body = read_body("children[0]", raw, get_dialect("anthropic"), strict=True)
    assert isinstance(body, Body)
    assert body.strict
    assert [f.name for f in body.frames] == [s.name for s in body.parsed.segments]
    assert body.frame_index("messages[0]") == 5


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b'{"messages": [', "children[0] is not JSON: "),
        (b"[]", "children[0] is not a request of the openai dialect: the body is an array"),
        (
            b'{"messages": [{"role": "robot"}]}',
            "children[0] is not a request of the openai dialect: messages[0].role",
        ),
        (
            b'{"messages": [{"role": "user", "content": [{"type": 7}]}]}',
            "children[0] is not a request of the openai dialect: messages[0].content[0]",
        ),
    ],
)
def test_unreadable_bodies_give_one_sentence(raw: bytes, problem: str) -> None:
    found = read_body("children[0]", raw, OPENAI)
    assert isinstance(found, str)
    assert found.startswith(problem)


def test_openai_renders_tool_results_as_one_message_each() -> None:
    calls = Message(
        "model",
        (FunctionCall("a", freeze({}), id="1"), FunctionCall("b", freeze({}), id="2")),
    )
    results = Message(
        "user",
        (FunctionResponse("a", "x", id="1"), FunctionResponse("b", "y", id="2"), Text("go")),
    )
    history = (Message("user", (Text("hi"),)), calls, results)
    assert message_frames(OPENAI, history) == (1, 1, 3)
    assert message_frames(get_dialect("gemini"), history) == (1, 1, 1)


def test_message_frame_maps_a_message_to_its_first_segment() -> None:
    raw = outcome(REFERENCE, "fork-model-calls", "openai").children[0]
    body = read_body("children[0]", raw, OPENAI)
    assert isinstance(body, Body)
    names = [message_frame(OPENAI, body, k) for k in range(len(body.request.history) + 1)]
    assert [f.name if f else None for f in names] == [
        "messages[2]",  # each message's header first
        "messages[3]",
        "messages[4]",  # the tool result; the image follows as messages[5]
        "messages[6]",
        "messages[7]",  # the placeholder result, then the child message as messages[8]
        "messages[9]",
        "messages[10]",
        None,
    ]
    strict = read_body("children[0]", raw, OPENAI, strict=True)
    assert isinstance(strict, Body)
    same = [message_frame(OPENAI, strict, k) for k in range(len(strict.request.history) + 1)]
    assert [f.name if f else None for f in same] == [f.name if f else None for f in names]
    assert orjson.loads(raw)["messages"][5]["content"][0]["type"] == "image_url"


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "openai", "openai-responses"])
def test_message_frames_of_a_read_body_are_those_rendered_alone(dialect: str) -> None:
    d = get_dialect(dialect)
    raw = outcome(REFERENCE, "fork-model-calls", dialect).children[0]
    body = read_body("children[0]", raw, d, strict=True)
    assert isinstance(body, Body)
    history = body.request.history
    alone = tuple(_rendered_count(d, m) for m in history)
    assert all(d.read_segments(m) is not None for m in history)  # counted without a rendering
    assert message_frames(d, history) == alone
    assert body.history_start + sum(alone) == len(body.frames)


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "openai", "openai-responses"])
def test_each_message_starts_where_its_first_body_item_does(dialect: str) -> None:
    d = get_dialect(dialect)
    raw = outcome(REFERENCE, "fork-model-calls", dialect).children[0]
    body = read_body("children[0]", raw, d)
    assert isinstance(body, Body)
    starts = message_starts(d, body)
    assert starts[0] == body.history_start
    assert starts[-1] == len(body.frames)
    assert list(starts) == sorted(starts)
    for k in range(len(body.request.history)):  # every frame of a message is one of its items
        items = {body.items[i] for i in range(starts[k], starts[k + 1])}
        assert len(items) == message_frames(d, body.request.history)[k]


def _rendered_count(dialect: Dialect, m: Message) -> int:
    """The segments of ``m`` rendered alone by ``dialect``."""
    return len(dialect.segments(orjson.loads(dialect.render(Request(Preset(), (m,))))))


def test_frames_of_families_and_frames_in_a_range() -> None:
    raw = outcome(REFERENCE, "fork-model-calls", "anthropic").children[0]
    body = read_body("children[0]", raw, get_dialect("anthropic"))
    assert isinstance(body, Body)
    assert body.frame_count == len(body.parsed.cache.units)
    assert body.history_start == 5
    assert body.frames_of("system") == body.frames[3:5]  # after three tools
    assert body.frames_of("tools", "system") == body.frames[:5]
    assert body.frames_of("no-such-family") == ()  # type: ignore[arg-type]
    assert body.frames_in(body.history_start, body.history_start + 2) == body.frames[5:7]
    assert body.frames_in(body.frame_count - 1, body.frame_count + 5) == body.frames[-1:]
    assert body.frames_in(-3, 1) == body.frames[:1]
