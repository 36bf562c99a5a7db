"""Messages read once: a repeated message is the same value, and reading it again after
other calls still gives what a fresh reading gives; so do a body's settings."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pytest

from harness.dialects import DialectError, _memo, get_dialect
from harness.dialects._memo import (
    Leading,
    Memo,
    call_names,
    each,
    forget,
    frozen_each,
    message_once,
    on_forget,
    resume_taken,
    taken_runs,
    vouched,
)
from harness.dialects.anthropic import DIALECT as ANTHROPIC
from harness.dialects.gemini import DIALECT as GEMINI
from harness.dialects.openai import DIALECT as OPENAI
from harness.dialects.openai_responses import DIALECT as RESPONSES
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Json,
    Message,
    Preset,
    Request,
    Text,
    freeze,
)


def test_a_plain_object_is_kept_by_its_bytes_and_key_order() -> None:
    memo: Memo[str] = Memo()
    first, second = {"a": 1, "b": 2}, {"b": 2, "a": 1}
    memo.put(memo.key(first), "first")
    assert memo.get(memo.key({"a": 1, "b": 2})) == "first"
    assert memo.get(memo.key(second)) is None
    assert memo.get(memo.key({"a": True, "b": 2})) is None  # true is not 1


def test_values_that_are_not_plain_decoded_objects_are_not_kept() -> None:
    memo: Memo[str] = Memo()
    assert memo.key(["a"]) is None
    assert memo.key({"a": 2**70}) is None  # beyond orjson's integers
    memo.put(None, "nothing")
    assert memo.get(None) is None


def test_once_reads_a_value_of_new_bytes_and_gives_back_what_it_read_before() -> None:
    memo: Memo[list[int]] = Memo()
    calls: list[int] = []

    def read(n: int) -> list[int]:
        calls.append(n)
        return [n]

    first = memo.once({"a": 1}, lambda: read(1))
    assert memo.once({"a": 1}, lambda: read(2)) is first
    assert memo.once({"a": True}, lambda: read(3)) == [3]  # true is not 1
    assert memo.once(["a"], lambda: read(4)) == [4]  # not a plain object: read each time
    assert memo.once(["a"], lambda: read(5)) == [5]
    assert calls == [1, 3, 4, 5]


def test_a_full_memo_starts_again() -> None:
    memo: Memo[int] = Memo(limit=2)
    keys = [memo.key({"k": i}) for i in range(3)]
    for i, key in enumerate(keys):
        memo.put(key, i)
    assert memo.get(keys[0]) is None
    assert memo.get(keys[2]) == 2
    small: Memo[int] = Memo(max_bytes=10)
    small.put(small.key({"key": "long enough"}), 1)
    small.put(small.key({"k": 2}), 2)
    assert small.get(small.key({"key": "long enough"})) is None


def _anthropic(call_name: str) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 5,
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "c1", "name": call_name, "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1"}]},
        ],
    }


def test_anthropic_a_repeated_result_takes_the_name_of_the_call_before_it() -> None:
    first = ANTHROPIC.to_request(_anthropic("search")).history
    again = ANTHROPIC.to_request(_anthropic("search")).history
    other = ANTHROPIC.to_request(_anthropic("read")).history
    assert again[2] is first[2]  # read once, shared
    response = other[2].parts[0]
    assert isinstance(response, FunctionResponse)
    assert response.name == "read"


def test_anthropic_a_result_after_its_own_call_in_one_message() -> None:
    body = _anthropic("x")
    body["messages"][1:] = [
        {
            "role": "user",
            "content": [
                {"type": "tool_use", "id": "c1", "name": "inner", "input": {}},
                {"type": "tool_result", "tool_use_id": "c1"},
            ],
        }
    ]
    for _ in range(2):
        part = ANTHROPIC.to_request(body).history[1].parts[1]
        assert isinstance(part, FunctionResponse)
        assert part.name == "inner"


def test_gemini_a_repeated_entry_is_read_once() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}
    first = GEMINI.to_request(body).history[0]
    assert (
        GEMINI.to_request({"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}).history[0]
        is first
    )


def _responses(call_name: str) -> dict[str, Any]:
    return {
        "model": "m",
        "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "call_id": "c1", "name": call_name, "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "done"},
        ],
    }


def test_responses_a_repeated_output_takes_the_name_of_the_call_before_it() -> None:
    first = RESPONSES.to_request(_responses("search")).history
    again = RESPONSES.to_request(_responses("search")).history
    other = RESPONSES.to_request(_responses("read")).history
    assert again == first
    assert again[-1].wire == first[-1].wire
    response = other[-1].parts[0]
    assert isinstance(response, FunctionResponse)
    assert response.name == "read"


def test_responses_repeated_messages_are_read_once_whoever_sends_them() -> None:
    body = _responses("search")
    body["input"][2:2] = [{"role": "developer", "content": [{"type": "input_text", "text": "x"}]}]
    first = RESPONSES.to_request(body).history
    again = RESPONSES.to_request(_responses("search") | {"input": list(body["input"])}).history
    assert [m.role for m in first] == ["user", "model", "system", "user"]
    assert again == first
    assert again[0].parts[0] is first[0].parts[0]  # the user's text, read once
    assert again[2].parts[0] is first[2].parts[0]  # the developer's
    assert [len(m.wire["openai-responses"]) for m in again] == [1, 1, 1, 1]


def test_frozen_each_is_freeze_with_each_object_frozen_once() -> None:
    memo: Memo[Json] = Memo()
    run = [{"role": "tool", "content": ["a", {"b": 1}]}, "text", None]
    assert frozen_each(memo, run) == freeze(run)
    again = frozen_each(memo, [{"role": "tool", "content": ["a", {"b": 1}]}])
    assert again[0] is frozen_each(memo, run)[0]
    assert frozen_each(memo, [{"role": "tool", "content": ["a", {"b": True}]}])[0] is not again[0]


def test_openai_a_repeated_assistant_message_still_names_the_results_after_it() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
        ],
    }
    for _ in range(2):
        response = OPENAI.to_request(body).history[-1].parts[0]
        assert isinstance(response, FunctionResponse)
        assert response.name == "search"


def _openai(call_name: str) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": call_name, "arguments": "{}"}}
    return {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
            {"role": "user", "content": "next"},
        ],
    }


def test_openai_a_repeated_tool_message_takes_the_name_of_the_call_before_it() -> None:
    first = OPENAI.to_request(_openai("search")).history
    again = OPENAI.to_request(_openai("search")).history
    other = OPENAI.to_request(_openai("read")).history
    assert again == first
    assert again[-1].parts[0] is first[-1].parts[0]  # the tool message read once
    assert again[0].parts[0] is first[0].parts[0]  # and the user's content
    assert again[-1].wire == first[-1].wire
    names = [p.name for p in other[-1].parts if isinstance(p, FunctionResponse)]
    assert names == ["read"]
    assert other[-1].parts[1:] == first[-1].parts[1:]


def test_frozen_each_takes_the_keys_a_caller_has() -> None:
    memo: Memo[Json] = Memo()
    run = [{"a": 1}, {"b": [2]}]
    keys = [memo.key(item) for item in run]
    assert frozen_each(memo, run, keys) == freeze(run)
    assert frozen_each(memo, [{"a": 1}])[0] is frozen_each(memo, run, keys)[0]


def test_forget_empties_every_memo() -> None:
    memo: Memo[int] = Memo()
    memo.put(memo.key({"k": 1}), 1)
    forget()
    assert memo.get(memo.key({"k": 1})) is None


def test_leading_items_are_shared_by_object_never_by_equality() -> None:
    leading: Leading[list[str]] = Leading()
    first, second = {"n": 1}, {"n": 2}
    leading.keep([first, second], ["a", "b"])
    cases = [
        ([first, second, {"n": 3}], 2),
        ([first, {"n": 2}], 1),  # equal, but another object
        ([{"n": 1}, second], 0),
        ([second, first], 0),  # the same objects at other indexes
        ([first], 1),
    ]
    for items, shared in cases:
        assert leading.shared(items) == 0  # not vouched for: it may have changed since
        with vouched([items]):
            assert leading.shared(items) == shared
        assert leading.shared(items) == 0


def test_each_reads_only_the_items_not_shared_and_gives_what_reading_all_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_memo, "_FEW", 0)  # these arrays are short
    leading: Leading[list[tuple[int, Any]]] = Leading()
    calls: list[int] = []

    def read(k: int, item: Any) -> tuple[int, Any]:
        calls.append(k)
        return k, item["n"]

    items: list[Any] = [{"n": 1}, {"n": 1.0}, {"n": True}]
    with vouched([items]):
        assert each(leading, items, read) == [(0, 1), (1, 1.0), (2, True)]
    calls.clear()
    again = [items[0], items[1], {"n": True}, {"n": 4}]
    with vouched([again]):
        assert each(leading, again, read) == [read(k, item) for k, item in enumerate(again)]
        assert calls[:2] == [2, 3]  # the first two as read before
        assert [type(v) for _, v in each(leading, again, read)] == [int, float, bool, int]
    items[0]["n"] = 5  # changed in place: read anew outside ``vouched``
    assert each(leading, items, read)[0] == (0, 5)


def test_taken_runs_are_those_ending_before_the_last_item_shared() -> None:
    """A run that ends at the last shared item may go on in the next body: not taken."""
    leading: Leading[tuple[tuple[Message, ...], tuple[int, ...]]] = Leading()
    items: list[Any] = [{"n": k} for k in range(5)]
    read = tuple(Message("user", (Text(str(k)),)) for k in range(3))
    leading.keep(items, (read, (1, 3, 5)))  # runs: items[0], items[1:3], items[3:5]
    assert taken_runs(Leading(), items) == ((), ())  # nothing read before
    cases = [(items, 2), ([*items[:3], {"n": 3}], 1), (items[:2], 1), (items[:1], 0), ([], 0)]
    for later, taken in cases:
        assert taken_runs(leading, later) == ((), ())  # not vouched for
        with vouched([later]):
            assert taken_runs(leading, later) == (read[:taken], (1, 3, 5)[:taken])


def test_resume_taken_appends_the_runs_taken_and_learns_their_calls() -> None:
    leading: Leading[tuple[tuple[Message, ...], tuple[int, ...]]] = Leading()
    items: list[Any] = [{"n": k} for k in range(4)]
    call = FunctionCall("f", None, "c1")
    read = (Message("model", (call,)), Message("user", (FunctionResponse("f", "r", "c1"),)))
    leading.keep(items, (read, (1, 4)))  # the second run ends at the last item shared
    history: list[Message] = [Message("user", (Text("before"),))]
    ends, names = [0], {"c0": "g"}
    with vouched([items]):
        assert resume_taken(leading, items, history, ends, names) == 1  # the last run goes on
    assert history[1:] == [read[0]]
    assert history[1] is read[0]
    assert ends == [0, 1]
    assert names == {"c0": "g", "c1": "f"}
    assert resume_taken(Leading(), items, history, ends, names) == 0  # none taken
    assert len(history) == 2


def test_call_names_are_those_of_calls_with_an_id_the_last_one_winning() -> None:
    history = [
        Message("model", (Text("t"), FunctionCall("f", None, "c1"), FunctionCall("g", None))),
        Message("user", (FunctionResponse("f", "r", "c1"),)),
        Message("model", (FunctionCall("h", None, "c1"), FunctionCall("k", None, "c2"))),
    ]
    assert call_names(history) == {"c1": "h", "c2": "k"}
    assert call_names(history[:2]) == {"c1": "f"}
    assert call_names(()) == {}


def test_forget_empties_what_the_leading_memos_hold_and_calls_its_hooks() -> None:
    leading: Leading[list[int]] = Leading()
    item = {"k": 1}
    leading.keep([item], [1])
    called: list[bool] = []
    on_forget(lambda: called.append(True))
    forget()
    items = [item]
    with vouched([items]):
        assert leading.shared(items) == 0
    assert leading.values is None
    assert called


def test_a_body_changed_in_place_between_readings_reads_anew() -> None:
    """Only ``read_body`` vouches for the items it shares: a caller's own body may change."""
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "a"}] * 1}
    body["messages"].append({"role": "assistant", "content": "b"})
    first = OPENAI.to_request(body)
    body["messages"][0]["content"] = "changed"
    assert OPENAI.to_request(body).history[0].text == "changed"
    assert first.history[0].text == "a"


def test_tool_declarations_are_kept_by_their_bytes() -> None:
    """A declaration read again is the Tool read before; one of other bytes (1.0 for 1, true
    for 1, another key order) reads as itself."""
    for dialect, wrap in [
        (OPENAI, lambda p: {"type": "function", "function": {"name": "f", "parameters": p}}),
        (RESPONSES, lambda p: {"type": "function", "name": "f", "parameters": p}),
        (ANTHROPIC, lambda p: {"name": "f", "input_schema": p}),
    ]:
        forget()
        variants = [{"a": 1, "b": 2}, {"a": 1.0, "b": 2}, {"a": True, "b": 2}, {"b": 2, "a": 1}]
        first = [dialect.to_request(_with_tools(dialect, [wrap(p)])) for p in variants]
        again = [dialect.to_request(_with_tools(dialect, [wrap(p)])) for p in variants]
        for one, two in zip(first, again, strict=True):
            assert one.preset.tools[0] is two.preset.tools[0]
        forget()
        alone = [repr(dialect.to_request(_with_tools(dialect, [wrap(p)]))) for p in variants]
        assert [repr(r) for r in first] == alone
        assert len(set(alone)) == len(variants)


def _with_tools(dialect: Any, tools: list[Any]) -> dict[str, Any]:
    if dialect is RESPONSES:
        return {"input": [], "tools": tools}
    if dialect is ANTHROPIC:
        return {"max_tokens": 1, "tools": tools, "messages": []}
    return {"messages": [], "tools": tools}


def test_message_once_gives_the_message_of_the_same_bytes_role_and_part_objects() -> None:
    messages: Memo[Message] = Memo()
    frozen: Memo[Json] = Memo()
    run = [{"role": "user", "content": "hi"}, {"role": "user", "content": "there"}]
    keys = [Memo.key(item) for item in run]
    parts = (Text("hi"), Text("there"))
    first = message_once(messages, frozen, "openai", "user", parts, run, keys)
    assert first.wire == {"openai": freeze(run)}
    assert message_once(messages, frozen, "openai", "user", parts, run, keys) is first
    equal = (Text("hi"), Text("there"))  # equal parts, other objects: a message anew
    assert message_once(messages, frozen, "openai", "user", equal, run, keys) is not first
    again = message_once(messages, frozen, "openai", "user", equal, run, keys)
    assert again.parts[0] is equal[0]
    assert message_once(messages, frozen, "openai", "system", equal, run, keys).role == "system"
    assert message_once(messages, frozen, "openai", "user", equal[:1], run, keys).parts == equal[:1]
    split = [{"role": "user", "content": "hi"}]  # other bytes: another run
    alone = message_once(messages, frozen, "openai", "user", equal, split, [Memo.key(split[0])])
    assert alone.wire == {"openai": freeze(split)}
    odd = [(1, 2)]  # no key: never kept
    kept = message_once(messages, frozen, "openai", "user", parts, odd, [None])
    assert message_once(messages, frozen, "openai", "user", parts, odd, [None]) is not kept


@pytest.mark.parametrize("dialect", [OPENAI, RESPONSES])
def test_a_fork_holds_its_parents_message_objects(dialect: Any) -> None:
    body = _openai("search") if dialect is OPENAI else _responses("search")
    first = dialect.to_request(body).history
    again = dialect.to_request(_openai("search") if dialect is OPENAI else _responses("search"))
    assert all(a is b for a, b in zip(again.history, first, strict=True))
    other = dialect.to_request(_openai("read") if dialect is OPENAI else _responses("read"))
    assert other.history[-1] is not first[-1]  # its result names another function
    assert other.history[0] is first[0]


def _anthropic_body(**fields: Any) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]} | fields


@pytest.mark.parametrize(
    "fields",
    [
        [{"temperature": 1}, {"temperature": 1.0}, {"temperature": 1}],
        [{"thinking": {"type": "enabled", "budget_tokens": 2}}, {"thinking": {"type": "enabled"}}],
        [{"tool_choice": {"type": "auto"}}, {"tool_choice": {"type": "auto", "x": 1}}],
        [{"top_k": 3}, {"top_k": 3, "stop_sequences": ["a"]}, {"top_k": 3}],
    ],
)
def test_anthropic_settings_read_after_others_read_as_read_alone(
    fields: list[dict[str, Any]],
) -> None:
    read = [ANTHROPIC.to_request(_anthropic_body(**f)).preset.settings for f in fields]
    alone = []
    for f in fields:
        forget()
        alone.append(ANTHROPIC.to_request(_anthropic_body(**f)).preset.settings)
    assert [repr(s) for s in read] == [repr(s) for s in alone]


def test_gemini_a_declaration_read_before_is_the_same_tool_and_a_bad_one_still_names_its_path() -> (
    None
):
    decl = {"name": "f", "parameters": {"type": "object"}}
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    first = GEMINI.to_request(body | {"tools": [{"functionDeclarations": [decl]}]})
    other = {"name": "g"}
    again = GEMINI.to_request(body | {"tools": [{"functionDeclarations": [other, dict(decl)]}]})
    assert again.preset.tools[1] is first.preset.tools[0]
    with pytest.raises(DialectError) as raised:
        GEMINI.to_request(body | {"tools": [{"functionDeclarations": [dict(decl), {"x": 1}]}]})
    assert raised.value.path == "tools[0].functionDeclarations[1].name"


HELLO_AGAIN = Message("user", (Text("hello"),))


def test_per_body_gives_again_only_for_the_very_body_in_the_same_reading() -> None:
    per: _memo.PerBody[int] = _memo.PerBody()
    body: dict[str, Any] = {"a": 1}
    seen: list[int] = []

    def read(value: dict[str, Any]) -> int:
        seen.append(1)
        return int(value["a"])

    assert per.once(body, lambda: read(body)) == 1  # no reading under way: not kept
    body["a"] = 2
    assert per.once(body, lambda: read(body)) == 2
    with vouched([]):
        assert per.once(body, lambda: read(body)) == 2
        assert per.once(body, lambda: read(body)) == 2
        other = dict(body)
        assert per.once(other, lambda: read(other)) == 2  # another object: read
    assert len(seen) == 4
    body["a"] = 3  # changed between two readings
    with vouched([]):
        assert per.once(body, lambda: read(body)) == 3


@pytest.mark.parametrize("dialect", [ANTHROPIC, GEMINI, OPENAI, RESPONSES])
def test_a_body_changed_between_readings_parses_anew(dialect: Any) -> None:
    body = orjson.loads(dialect.render(Request(Preset(system=("s",)), (HELLO_AGAIN,))))
    for _ in range(2):
        with vouched([]):
            parsed = dialect.parse(body)
            assert parsed.request.history == (HELLO_AGAIN,)
    marked = orjson.loads(dialect.render(Request(Preset(), (HELLO_AGAIN, HELLO_AGAIN))))
    body.clear()
    body.update(marked)
    with vouched([]):
        parsed = dialect.parse(body)
        assert parsed.request.history == (HELLO_AGAIN, HELLO_AGAIN)
        assert len([s for s in parsed.segments if "[" in s.name]) == 2


# --- settings read after other bodies read as a fresh reading gives them ----------------


class _Str(str):
    pass


_HEADS: dict[str, dict[str, Any]] = {
    "anthropic": {"messages": [{"role": "user", "content": "hi"}]},
    "openai": {"messages": [{"role": "user", "content": "hi"}]},
    "openai-responses": {"input": [{"role": "user", "content": "hi"}]},
    "gemini": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
}

_TOOLED: dict[str, dict[str, Any]] = {
    "anthropic": {"tools": [{"name": "f", "input_schema": {}, "x": 1}]},
    "openai": {"tools": [{"type": "function", "function": {"name": "f", "x": 1}}]},
    "openai-responses": {"tools": [{"type": "function", "name": "f", "x": 1}]},
    "gemini": {"tools": [{"googleSearch": {}}, {"functionDeclarations": [{"name": "f"}]}]},
}
"""Tools that reach the settings (their unknown fields, a non-function tool)."""

_SETTINGS: list[dict[str, Any]] = [
    {},
    {"model": "m", "temperature": 1},
    {"model": "m", "temperature": 1.0},
    {"model": "m", "temperature": True},
    {"temperature": 1, "model": "m"},
    {"model": "m", "temperature": math.nan},
    {"model": "m", "temperature": None},
    {"model": "m", "max_tokens": 10, "max_output_tokens": 10, "top_p": 0.5},
    {"model": "m", "max_tokens": (10,)},
    {"model": "m", "stop_sequences": ["a"], "stop": ["a"]},
    {"model": "m", "stop_sequences": ("a",), "stop": ("a",)},
    {"model": _Str("m")},
    {"model": 3},
    {"thinking": {"type": "enabled", "budget_tokens": 5}, "reasoning": {"effort": "low"}},
    {"thinking": {"type": "enabled", "budget_tokens": 5.0}, "reasoning": {"effort": 1}},
    {"tool_choice": {"type": "auto"}},
    {"tool_choice": "auto"},
    {"tool_choice": {"type": "tool", "name": "f"}},
    {"tool_choice": {"type": "function", "function": {"name": "f"}}},
    {"metadata": {"user_id": "u"}, "store": True},
    {"metadata": {"user_id": ("u",)}, "store": 1},
    {"generationConfig": {"temperature": 1, "maxOutputTokens": 5}},
    {"generationConfig": {"temperature": 1.0, "maxOutputTokens": 5.0}},
    {"generationConfig": {"temperature": 1, "maxOutputTokens": 5}, "toolConfig": {}},
    {"text": {"format": {"type": "text"}}, "output_format": {"type": "json_schema"}},
]


def _read(name: str, body: dict[str, Any]) -> str:
    """The request's settings (by repr: 1, 1.0 and True apart), or the error's message."""
    try:
        return repr(get_dialect(name).to_request(body).preset.settings)
    except DialectError as e:
        return f"error: {e}"


@pytest.mark.parametrize("name", sorted(_HEADS))
def test_settings_read_after_others_are_a_fresh_reading(name: str) -> None:
    bodies = [{**fields, **_HEADS[name]} for fields in _SETTINGS]
    bodies += [{**_HEADS[name], **fields} for fields in _SETTINGS]  # the head first
    bodies += [{**_TOOLED[name], **body} for body in bodies[: len(_SETTINGS)]]
    bodies += [{**fields, **_HEADS[name], "tools": []} for fields in _SETTINGS]
    fresh = []
    for body in bodies:
        forget()
        fresh.append(_read(name, body))
    forget()
    for _ in range(2):  # warm: every body read after the others
        assert [_read(name, body) for body in bodies] == fresh
