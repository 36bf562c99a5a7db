from typing import Any

import orjson
import pytest

from harness.check import bundled_fixtures
from harness.dialects import _memo, get_dialect
from harness.dialects._memo import forget
from harness.model import FunctionCall, FunctionResponse, Message, Text, freeze
from harness.rules import _body
from harness.rules._body import Body, _rendered_count, message_frame, message_frames, read_body
from harness.scenarios import load_fixtures

from .support import REFERENCE, outcome

OPENAI = get_dialect("openai")


def test_a_reference_child_reads_with_stream_request_and_families() -> None:
    raw = outcome(REFERENCE, "fork-model-calls", "anthropic").children[0]
    body = read_body("children[0]", raw, get_dialect("anthropic"))
    assert isinstance(body, Body)
    assert body.label == "children[0]"
    assert len(body.families) == len(body.frames) == len(body.parsed.segments)
    assert body.history_start == 5  # three tools, two system blocks
    assert [f.name for f in body.frames_of("system")] == ["system[0]", "system[1]"]
    assert body.frame_index("messages[0]") == 5
    assert body.frame_index("messages[99]") is None
    assert body.request.history[-1].text == "Begin."


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
        "messages[2]",
        "messages[3]",
        "messages[4]",  # the tool result; the image follows as messages[5]
        "messages[6]",
        "messages[7]",  # the placeholder result, then the child message as messages[8]
        "messages[9]",
        "messages[10]",
        None,
    ]
    assert orjson.loads(raw)["messages"][5]["content"][0]["type"] == "image_url"


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "openai", "openai-responses"])
def test_message_frames_of_a_read_body_are_those_rendered_alone(dialect: str) -> None:
    d = get_dialect(dialect)
    raw = outcome(REFERENCE, "fork-model-calls", dialect).children[0]
    body = read_body("children[0]", raw, d)
    assert isinstance(body, Body)
    history = body.request.history
    alone = tuple(_rendered_count(d, m) for m in history)
    assert message_frames(d, history) == alone
    assert body.history_start + sum(alone) == len(body.frames)


def test_head_frames_and_counts_need_no_frame_of_the_history_built() -> None:
    raw = outcome(REFERENCE, "fork-model-calls", "anthropic").children[0]
    body = read_body("children[0]", raw, get_dialect("anthropic"))
    assert isinstance(body, Body)
    system = body.frames_of("system")
    assert body.stream._frames is None  # no frame of the history built for the head's
    assert body.frame_count == len(body.parsed.segments)
    assert body.history_start == 5
    inside = body.frames_in(body.history_start, body.history_start + 2)
    assert body.frames_in(body.frame_count - 1, body.frame_count + 5) == body.frames[-1:]
    assert body.stream._frames is not None  # built by the line above, not before
    assert system == body.frames[3:5]  # after three tools
    assert all(a is b for a, b in zip(system, body.frames[3:5], strict=True))
    assert inside == body.frames[5:7]


# --- a body read after another: the items it shares by bytes are read as they were ----------


def _read_as(raw: bytes, dialect: str, like: Body | None = None) -> object:
    """Everything a body reads to, in forms that tell 1, 1.0 and true apart (reprs, bytes);
    read with ``like`` as the body it may repeat, if given."""
    body = read_body("b", raw, get_dialect(dialect), like)
    if isinstance(body, str):
        return body
    parsed, request = body.parsed, body.request
    return (
        repr(parsed.body),
        repr(parsed.segments),
        repr(parsed.settings),
        parsed.cache_markers,
        repr(parsed.markers),
        body.families,
        repr(request),
        [repr(m.source) for m in request.history],
        [(f.name, f.start, f.end) for f in body.frames],
    )


def _cold(raw: bytes, dialect: str) -> object:
    forget()
    return _read_as(raw, dialect)


def _in_turn(bodies: list[bytes], dialect: str) -> None:
    """Each body read after the one before it reads as it does read alone."""
    cold = [_cold(raw, dialect) for raw in bodies]
    forget()
    assert [_read_as(raw, dialect) for raw in bodies] == cold


def _first_two(bodies: list[bytes], dialect: str) -> tuple[Body, Body]:
    """``_in_turn`` of the bodies, then the first two read in turn from nothing kept."""
    _in_turn(bodies, dialect)
    forget()
    first = read_body("p", bodies[0], get_dialect(dialect))
    second = read_body("c", bodies[1], get_dialect(dialect))
    assert isinstance(first, Body)
    assert isinstance(second, Body)
    return first, second


@pytest.fixture(params=["as set", "eager"])
def reuse(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The thresholds as set, or none: every shared byte and array taken (small bodies too)."""
    if request.param == "eager":
        monkeypatch.setattr(_body, "_MIN_SHARED", 0)
        monkeypatch.setattr(_memo, "_FEW", 0)


@pytest.fixture
def eager(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_body, "_MIN_SHARED", 0)
    monkeypatch.setattr(_memo, "_FEW", 0)


@pytest.mark.usefixtures("reuse")
@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "openai", "openai-responses"])
def test_a_corpus_outcomes_bodies_read_in_turn_as_each_reads_alone(dialect: str) -> None:
    for scenario in list(load_fixtures(bundled_fixtures())):
        o = REFERENCE.assemble(scenario, dialect)
        bodies = [o.parent, *o.children, *o.follow_ups, o.parent_next]
        _in_turn([raw for raw in bodies if raw is not None], dialect)


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


_HEAD = {"model": "m", "max_tokens": 9, "system": "s"}
_CALL = {"type": "tool_use", "id": "c1", "name": "f", "input": {"n": 1}}
_RESULT = {"type": "tool_result", "tool_use_id": "c1"}
_CHAT_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
}
_TOOL = {"role": "tool", "tool_call_id": "c1", "content": "r"}
_FUNCTION_CALL = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
_OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "r"}
_EDGES: dict[str, list[dict[str, object]]] = {
    # each body shares all but the last item of the one before it: where a run of items the
    # body before ended there, the same items go on into another run in this one
    "anthropic": [
        {**_HEAD, "messages": [_user("q"), {"role": "assistant", "content": [_CALL]}, _user("k")]},
        {  # a result of a call taken as read: its name is the call's
            **_HEAD,
            "messages": [
                _user("q"),
                {"role": "assistant", "content": [_CALL]},
                {"role": "user", "content": [_RESULT]},
                _user("k"),
            ],
        },
        {
            **_HEAD,
            "messages": [
                _user("q"),
                {"role": "assistant", "content": [_CALL]},
                {"role": "user", "content": [_RESULT]},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
                    ],
                },
            ],
        },
    ],
    "gemini": [
        {"contents": [{"role": "user", "parts": [{"text": "q"}]}, {"role": "model", "parts": []}]},
        {
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"n": 1}}}]},
            ]
        },
    ],
    "openai": [
        {  # the tool message's run ends before the assistant message
            "messages": [
                {"role": "system", "content": "s"},
                _user("q"),
                _CHAT_CALL,
                _TOOL,
                {"role": "assistant", "content": "x"},
            ]
        },
        {  # here it goes on into the user message after it: one neutral message
            "messages": [
                {"role": "system", "content": "s"},
                _user("q"),
                _CHAT_CALL,
                _TOOL,
                _user("go"),
            ]
        },
        {
            "messages": [
                {"role": "system", "content": "s"},
                _user("q"),
                _CHAT_CALL,
                _TOOL,
                {"role": "tool", "tool_call_id": "c1", "content": "again"},
                {"role": "assistant", "content": "x"},
            ]
        },
    ],
    "openai-responses": [
        {"input": [_user("q"), _FUNCTION_CALL, _user("k")]},
        {  # the model's run goes on: one model message with both calls
            "input": [
                _user("q"),
                _FUNCTION_CALL,
                {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
                _user("k"),
            ]
        },
        {"input": [_user("q"), _FUNCTION_CALL, _OUTPUT, _FUNCTION_CALL]},
        {"input": [_user("q"), _FUNCTION_CALL, _OUTPUT, _user("go")]},  # the output joins it
    ],
}


def _history_key(dialect: str) -> str:
    return {"gemini": "contents", "openai-responses": "input"}.get(dialect, "messages")


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize("dialect", sorted(_EDGES))
def test_a_body_read_after_one_it_extends_reads_as_it_does_alone(dialect: str) -> None:
    """Runs that end where the body before ends (a tool run, a model's calls), call names
    learnt from messages taken as read, markers after them: each body as read alone."""
    first, second = _first_two([orjson.dumps(body) for body in _EDGES[dialect]], dialect)
    key = _history_key(dialect)
    shared = len(first.parsed.body[key]) - 2  # the last item the two bodies share
    assert second.parsed.body[key][shared] is first.parsed.body[key][shared]  # the fast path


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize("dialect", sorted(_EDGES))
def test_a_body_whose_bytes_differ_from_the_one_before_is_read_from_its_own(dialect: str) -> None:
    """1, 1.0 and true are equal values of other bytes; whitespace, a key held twice and bytes
    that are no JSON are no compact encoding: each such body reads as it does alone."""
    parent = orjson.dumps(_EDGES[dialect][-1])
    key = _history_key(dialect).encode()
    variants = [
        parent.replace(b'"{}"', b'"{\\"n\\":1.0}"').replace(b'{"n":1}', b'{"n":1.0}'),
        parent.replace(b'{"n":1}', b'{"n":true}'),
        orjson.dumps(_EDGES[dialect][-1], option=orjson.OPT_INDENT_2),
        parent[:-1] + b',"' + key + b'":[]}',
        parent[:-1] + b',"' + key + b'":[' + parent[parent.index(b"[") + 1 : -1] + b"}",
        parent[:-2],
        parent.replace(b'"q"', b'"\\u0071"'),
    ]
    for variant in variants:
        _in_turn([parent, variant, parent], dialect)


def test_the_last_body_is_kept_per_dialect_and_forgotten_with_the_memos() -> None:
    raw = orjson.dumps(_EDGES["openai"][0])
    read_body("p", raw, OPENAI)
    assert _body._LAST["openai"][0] is raw
    forget()
    assert "openai" not in _body._LAST


@pytest.mark.usefixtures("eager")
def test_a_body_over_the_bound_is_not_kept_even_when_it_takes_the_last_ones_items(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forget()
    body = _EDGES["openai"][0]
    parent = orjson.dumps(body)
    child = orjson.dumps({"messages": [*body["messages"], _user("more")]})  # type: ignore[misc]
    monkeypatch.setattr(_body, "_LAST_MAX_BYTES", len(parent))
    assert len(child) > len(parent)
    first = read_body("p", parent, OPENAI)
    assert _body._LAST["openai"][0] is parent
    second = read_body("c", child, OPENAI)
    assert isinstance(first, Body)
    assert isinstance(second, Body)
    assert second.parsed.body["messages"][0] is first.parsed.body["messages"][0]  # taken
    assert "openai" not in _body._LAST
    forget()


_FUNCTION = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
_TOOL_EDGES: dict[str, list[Any]] = {
    "anthropic": [
        {"name": "f", "input_schema": {"type": "object"}},
        {"name": "g", "input_schema": {"properties": {}, "type": "object"}},  # renders otherwise
        {"type": "web_search_20250305", "name": "web_search"},
        {"name": "h", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}},
    ],
    "openai": [
        _FUNCTION,
        {"type": "function", "function": {"name": "f", "strict": True, "parameters": {}}},
        {"type": "function", "function": {"name": "f", "strict": 1}},  # the same name again
        {"type": "custom", "custom": {"name": "c"}},
    ],
    "openai-responses": [
        {"type": "function", "name": "f", "parameters": {"n": 1.0}},
        {"type": "function", "name": "f", "strict": True},
        {"type": "function", "name": "f", "strict": 1},  # the same name again
        {"type": "web_search"},
    ],
}


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize("dialect", sorted(_TOOL_EDGES))
def test_tools_shared_with_the_body_before_read_as_they_do_alone(dialect: str) -> None:
    """Tools of their own fields, server tools, a marked tool, extras of one name twice."""
    tools = _TOOL_EDGES[dialect]
    bodies = [{"tools": tools, **body} for body in _EDGES[dialect]]
    bodies += [{"tools": tools[:2], **_EDGES[dialect][0]}, {"tools": [], **_EDGES[dialect][0]}]
    first, second = _first_two([orjson.dumps(body) for body in bodies], dialect)
    assert second.parsed.body["tools"][-1] is first.parsed.body["tools"][-1]  # the fast path


def _read_like(raw: bytes, dialect: str, like: Body | None) -> object:
    """``_read_as``, the body read with ``like`` as the body it may repeat."""
    return _read_as(raw, dialect, like)


@pytest.mark.usefixtures("reuse")
@pytest.mark.parametrize("dialect", sorted(_EDGES))
def test_a_body_read_like_one_before_the_last_reads_as_it_does_alone(dialect: str) -> None:
    """A parent's next request read after a body of its own (a spawned child), with the
    parent as the body it may repeat: its extension, its own variants (other bytes for equal
    values, whitespace, a key held twice, no JSON) and the child itself read as alone."""
    bodies = _EDGES[dialect]
    parent, other = orjson.dumps(bodies[0]), orjson.dumps({"model": "x", **bodies[-1]})
    key = _history_key(dialect).encode()
    grown = orjson.dumps(bodies[-1])
    variants = [
        grown,
        parent,
        other,
        grown.replace(b'{"n":1}', b'{"n":1.0}'),
        grown.replace(b'{"n":1}', b'{"n":true}'),
        orjson.dumps(bodies[-1], option=orjson.OPT_INDENT_2),
        grown[:-1] + b',"' + key + b'":[]}',
        grown[:-2],
        grown.replace(b'"q"', b'"\\u0071"'),
        b"[" + grown + b"]",
    ]
    for variant in variants:
        alone = _cold(variant, dialect)
        forget()
        first = read_body("parent", parent, get_dialect(dialect))
        assert isinstance(first, Body)
        _read_as(other, dialect)  # the last body read is not the parent
        assert _read_like(variant, dialect, first) == alone
        assert _read_like(variant, dialect, None) == alone


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize("dialect", sorted(_EDGES))
def test_a_body_read_like_its_parent_takes_the_parents_items(dialect: str) -> None:
    """The fast path: the items the next request repeats are the parent's very objects,
    though another body was read in between."""
    bodies = _EDGES[dialect]
    forget()
    first = read_body("parent", orjson.dumps(bodies[0]), get_dialect(dialect))
    assert isinstance(first, Body)
    read_body("child", orjson.dumps({"model": "x", "other": [1, 2]}), get_dialect(dialect))
    grown = read_body("parent_next", orjson.dumps(bodies[1]), get_dialect(dialect), first)
    assert isinstance(grown, Body)
    key = _history_key(dialect)
    assert grown.parsed.body[key][0] is first.parsed.body[key][0]
