"""The fake OpenAI Responses API, driven by the official ``openai`` SDK over real HTTP on
loopback: Response objects and typed event streams, text and function calls, the stream
helper, token counting, records under the ``openai-responses`` dialect, keys redacted."""

from __future__ import annotations

import json
from typing import Any

import openai
import orjson
import pytest
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage

from harness.capture import check_records, read_log
from harness.dialects.openai_responses import WIRE

from ...capture.conftest import SECRET, Serve, post_json, record_text, request, sse_data

TEXT = "A scripted answer that is long enough to be streamed in pieces."
ARGS_A = {"directive": "A: list every file of the repository", "n": [1, 2]}
SCRIPT: dict[str, Any] = {
    "rules": [
        {
            "when": {"last_user_contains": "fork please"},
            "reply": {
                "call": [
                    {"name": "fork", "args": ARGS_A},
                    {"name": "fork", "args": {"directive": "B"}},
                ]
            },
            "mark": "parent",
        },
        {
            "when": {"last_user_contains": "say and fork"},
            "reply": {"text": "Forking now.", "call": {"name": "fork", "args": {"d": "C"}}},
            "mark": "both",
        },
    ],
    "default": {"text": TEXT},
}
TOOLS: list[Any] = [
    {
        "type": "function",
        "name": "fork",
        "description": "Fork a worker.",
        "parameters": {"type": "object", "properties": {"directive": {"type": "string"}}},
        "strict": False,
    }
]
INSTRUCTIONS = "You are a careful agent."
FORK_INPUT: list[Any] = [{"role": "user", "content": "fork please"}]

MESSAGE_EVENTS = [
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
]
CALL_EVENTS = [
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
]


def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key=SECRET, max_retries=0, timeout=10)


def squeezed(types: list[str]) -> list[str]:
    """The event types with each run of deltas counted once."""
    return [t for i, t in enumerate(types) if i == 0 or not (t == types[i - 1] and ".delta" in t)]


def test_text_reply(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        reply = sdk.responses.create(model="gpt-test", instructions=INSTRUCTIONS, input="hello")
    assert reply.output_text == TEXT
    assert (reply.id, reply.object, reply.status, reply.model) == (
        "resp_ph000001",
        "response",
        "completed",
        "gpt-test",
    )
    assert reply.error is None
    assert reply.incomplete_details is None
    (message,) = reply.output
    assert isinstance(message, ResponseOutputMessage)
    assert (message.role, message.status, message.content[0].type) == (
        "assistant",
        "completed",
        "output_text",
    )
    assert reply.usage is not None
    assert reply.usage.input_tokens > 0
    assert reply.usage.input_tokens_details.cached_tokens == 0
    assert reply.usage.output_tokens_details.reasoning_tokens == 0
    assert reply.usage.total_tokens == reply.usage.input_tokens + reply.usage.output_tokens
    (record,) = provider.records
    assert (record.dialect, record.status, record.path, record.stream, record.nth) == (
        "openai-responses",
        200,
        "/v1/responses",
        False,
        1,
    )
    parsed = record.parse().request
    assert parsed.preset.system == (INSTRUCTIONS,)
    assert parsed.history[-1].text == "hello"
    assert record.note is None


def test_function_calls_are_the_scripted_ones(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        reply = sdk.responses.create(model="gpt-test", input=FORK_INPUT, tools=TOOLS)
    assert reply.output_text == ""
    calls = reply.output
    assert all(isinstance(c, ResponseFunctionToolCall) for c in calls)
    assert [(c.type, c.name, c.status) for c in calls] == [
        ("function_call", "fork", "completed")
    ] * 2
    first, second = (c for c in calls if isinstance(c, ResponseFunctionToolCall))
    assert json.loads(first.arguments) == ARGS_A
    assert first.arguments == orjson.dumps(ARGS_A).decode()
    assert json.loads(second.arguments) == {"directive": "B"}
    assert [first.id, second.id] == ["fc_ph000001_0", "fc_ph000001_1"]
    assert [first.call_id, second.call_id] == [WIRE.call_id(1, 0), WIRE.call_id(1, 1)]
    assert [first.call_id, second.call_id] == ["call_ph000001_0", "call_ph000001_1"]
    record = provider.records[0]
    assert (record.mark, record.rule) == ("parent", 0)
    assert [t.name for t in record.parse().request.preset.tools] == ["fork"]


def test_text_then_a_call(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        reply = sdk.responses.create(model="m", input="please say and fork")
    assert [item.type for item in reply.output] == ["message", "function_call"]
    assert reply.output_text == "Forking now."
    assert provider.records[0].mark == "both"


def test_settings_are_echoed(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        plain = sdk.responses.create(model="m", input="hello")
        echoed = sdk.responses.create(
            model="m",
            input="hello",
            tools=TOOLS,
            tool_choice="required",
            parallel_tool_calls=False,
            previous_response_id=plain.id,
            store=False,
            reasoning={"effort": "low"},
            max_output_tokens=64,
        )
    assert (plain.previous_response_id, plain.store, plain.tool_choice, plain.tools) == (
        None,
        True,
        "auto",
        [],
    )
    assert plain.parallel_tool_calls is True
    assert plain.text is not None
    assert plain.text.format is not None
    assert plain.text.format.type == "text"
    assert echoed.previous_response_id == "resp_ph000001"
    assert (echoed.store, echoed.tool_choice, echoed.parallel_tool_calls) == (
        False,
        "required",
        False,
    )
    assert [t.type for t in echoed.tools] == ["function"]
    assert echoed.reasoning is not None
    assert echoed.reasoning.effort == "low"
    assert echoed.max_output_tokens == 64
    assert echoed.id == "resp_ph000002"


def test_stream_text(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        events = list(sdk.responses.create(model="gpt-test", input="hello", stream=True))
    types = [e.type for e in events]
    assert squeezed(types) == [
        "response.created",
        "response.in_progress",
        *MESSAGE_EVENTS,
        "response.completed",
    ]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 1
    assert "".join(deltas) == TEXT
    done = next(e for e in events if e.type == "response.output_text.done")
    assert done.text == TEXT
    first, last = events[0], events[-1]
    assert first.type == "response.created"
    assert first.response.status == "in_progress"
    assert last.type == "response.completed"
    assert last.response.output_text == TEXT
    assert last.response.usage is not None
    assert last.response.usage.output_tokens > 0
    assert provider.records[0].stream is True


def test_stream_function_calls(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        stream = sdk.responses.create(model="m", input=FORK_INPUT, tools=TOOLS, stream=True)
        events = list(stream)
    types = [e.type for e in events]
    assert squeezed(types) == [
        "response.created",
        "response.in_progress",
        *CALL_EVENTS,
        *CALL_EVENTS,
        "response.completed",
    ]
    arguments: dict[int, str] = {}
    names: dict[int, str] = {}
    for event in events:
        if event.type == "response.output_item.added":
            assert event.item.type == "function_call"
            names[event.output_index] = event.item.name
            assert event.item.arguments == ""
        if event.type == "response.function_call_arguments.delta":
            arguments[event.output_index] = arguments.get(event.output_index, "") + event.delta
        if event.type == "response.function_call_arguments.done":
            assert event.arguments == arguments[event.output_index]
    assert names == {0: "fork", 1: "fork"}
    assert json.loads(arguments[0]) == ARGS_A
    assert json.loads(arguments[1]) == {"directive": "B"}
    assert sum(1 for t in types if t == "response.function_call_arguments.delta") > 2
    completed = events[-1]
    assert completed.type == "response.completed"
    final = [c for c in completed.response.output if isinstance(c, ResponseFunctionToolCall)]
    assert [c.call_id for c in final] == ["call_ph000001_0", "call_ph000001_1"]
    assert provider.records[0].mark == "parent"


def test_the_stream_helper_builds_the_final_response(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        with sdk.responses.stream(model="m", input="hello") as stream:
            texts = [e.delta for e in stream if e.type == "response.output_text.delta"]
            final = stream.get_final_response()
        assert "".join(texts) == TEXT
        assert final.output_text == TEXT
        with sdk.responses.stream(model="m", input="please say and fork", tools=TOOLS) as stream:
            final = stream.get_final_response()
    assert final.output_text == "Forking now."
    (call,) = (c for c in final.output if isinstance(c, ResponseFunctionToolCall))
    assert (call.name, json.loads(call.arguments), call.call_id) == (
        "fork",
        {"d": "C"},
        WIRE.call_id(2, 0),
    )
    assert [r.stream for r in provider.records] == [True, True]


def test_input_tokens_are_counted_and_not_a_model_call(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        counted = sdk.responses.input_tokens.count(model="m", input="hello")
    assert counted.object == "response.input_tokens"
    assert counted.input_tokens > 0
    (record,) = provider.records
    assert (record.dialect, record.path, record.status, record.reply) == (
        "openai-responses",
        "/v1/responses/input_tokens",
        200,
        None,
    )


def test_raw_stream_is_typed_events_without_done(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    body = orjson.dumps({"model": "m", "input": "hello", "stream": True})
    status, headers, raw = request(provider, "POST", "/responses", body)
    assert status == 200
    assert headers["content-type"] == "text/event-stream"
    assert b"[DONE]" not in raw
    blocks = [b for b in raw.split(b"\n\n") if b]
    for block in blocks:
        event, data = block.split(b"\n")
        assert event.startswith(b"event: ")
        assert data.startswith(b"data: ")
        assert orjson.loads(data[len(b"data: ") :])["type"] == event[len(b"event: ") :].decode()
    assert len(sse_data(raw)) == len(blocks)
    assert provider.records[0].path == "/responses"


def test_models(serve: Serve) -> None:
    provider = serve("openai-responses")
    with client(provider.base_url) as sdk:
        assert [m.id for m in sdk.models.list().data] == ["prefix-harness-fake"]
        assert sdk.models.retrieve("gpt-x").id == "gpt-x"
    assert [(r.dialect, r.path) for r in provider.records] == [
        ("openai-responses", "/v1/models"),
        ("openai-responses", "/v1/models/gpt-x"),
    ]


def test_key_is_redacted_in_the_record(serve: Serve) -> None:
    provider = serve("openai-responses", SCRIPT)
    with client(provider.base_url) as sdk:
        sdk.responses.create(model="m", input="hello")
        list(sdk.responses.create(model="m", input="hello", stream=True))
    assert all(r.headers["authorization"] == "<redacted>" for r in provider.records)
    assert provider.records[0].headers["user-agent"].startswith("OpenAI/Python")
    assert SECRET not in record_text(provider)


def test_errors_are_openai_shaped_and_recorded(serve: Serve) -> None:
    provider = serve("openai-responses")
    with client(provider.base_url) as sdk, pytest.raises(openai.NotFoundError) as raised:
        sdk.responses.retrieve("resp_ph000001")
    assert "the fake openai-responses provider has no route GET /v1/responses/resp_ph000001" in str(
        raised.value
    )
    status, answer = post_json(provider, "/v1/responses", ["not", "an", "object"])
    assert status == 400
    assert answer["error"] == {
        "message": "the request body must be a JSON object",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    assert [(r.dialect, r.status) for r in provider.records] == [
        ("openai-responses", 404),
        ("openai-responses", 400),
    ]


def test_body_the_dialect_cannot_read_is_answered_and_noted(serve: Serve) -> None:
    provider = serve(
        "openai-responses", {"rules": [{"when": {"first": True}, "reply": {"text": "no"}}]}
    )
    status, answer = post_json(provider, "/v1/responses", {"model": "m", "input": 42})
    assert status == 200
    assert answer["output"][0]["content"][0]["text"] == "OK."
    assert "the openai-responses dialect could not read the body" in (
        provider.records[0].note or ""
    )


NAMESPACED: list[Any] = [
    {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
    {
        "type": "namespace",
        "name": "multi_agent_v1",
        "description": "Agents.",
        "tools": [
            {"type": "function", "name": "spawn_agent", "parameters": {"type": "object"}},
            {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
        ],
    },
]


@pytest.mark.parametrize("stream", [False, True])
def test_a_call_to_a_function_of_a_namespace_names_it(serve: Serve, stream: bool) -> None:
    calls = [
        {"name": "spawn_agent", "args": {"message": "A"}},
        {"name": "exec_command", "args": {}},
    ]
    provider = serve("openai-responses", {"default": {"call": calls}})
    with client(provider.base_url) as sdk:
        if stream:
            with sdk.responses.stream(model="m", input="go", tools=NAMESPACED) as events:
                reply = events.get_final_response()
        else:
            reply = sdk.responses.create(model="m", input="go", tools=NAMESPACED)
        plain = sdk.responses.create(model="m", input="go", tools=TOOLS)
    made = [c for c in reply.output if isinstance(c, ResponseFunctionToolCall)]
    assert [(c.namespace, c.name) for c in made] == [
        ("multi_agent_v1", "spawn_agent"),
        (None, "exec_command"),  # declared at the top level too: called there
    ]
    assert all(c.namespace is None for c in plain.output if isinstance(c, ResponseFunctionToolCall))
    status, raw = post_json(
        provider, "/v1/responses", {"input": "go", "tools": [{"type": "namespace"}]}
    )
    assert status == 200
    assert all("namespace" not in item for item in raw["output"])


def test_a_continuation_is_matched_and_grouped_with_the_history_it_continues(
    serve: Serve,
) -> None:
    script = {
        "rules": [
            {
                "when": {"in_fork_child": True, "history_contains": "original question"},
                "reply": {"text": "Worker done."},
                "mark": "child",
            },
            {
                "when": {"first": True},
                "reply": {"call": {"name": "fork", "args": {"directive": "A: list"}}},
                "mark": "parent",
            },
        ]
    }
    provider = serve("openai-responses", script)
    settings: dict[str, Any] = {"model": "m", "instructions": INSTRUCTIONS, "tools": TOOLS}
    with client(provider.base_url) as sdk:
        parent = sdk.responses.create(
            input=[{"role": "user", "content": "original question"}], **settings
        )
        (call,) = (c for c in parent.output if isinstance(c, ResponseFunctionToolCall))
        child_input: list[Any] = [
            {"type": "function_call_output", "call_id": call.call_id, "output": "Forked."},
            {"role": "user", "content": "<fork-boilerplate>worker</fork-boilerplate>\nA: list"},
        ]
        child = sdk.responses.create(previous_response_id=parent.id, input=child_input, **settings)
        elsewhere = sdk.responses.create(
            previous_response_id="resp_elsewhere", input=child_input, **settings
        )
    assert child.output_text == "Worker done."
    assert [item.type for item in elsewhere.output] == ["function_call"]
    records = provider.records
    assert [(r.mark, r.note) for r in records[:2]] == [("parent", None), ("child", None)]
    assert records[2].mark == "parent"  # read as its own input only: a first turn
    assert (records[2].note or "").startswith("the body continues 'resp_elsewhere'")
    assert records[1].json["previous_response_id"] == "resp_ph000001"  # recorded as sent
    result = check_records(records[:2])
    assert [c.id for c in result.checks] == ["fork-1"]
    assert not result.failed
    assert result.inconclusive == ()
    offline, _ = read_log(provider.record_file or "")
    assert [[m.role for m in u.history] for u in offline] == [
        ["user"],
        ["user", "model", "user"],
        ["user"],
    ]
