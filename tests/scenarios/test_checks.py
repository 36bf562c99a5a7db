from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.model import FunctionCall, FunctionResponse, Message, Preset, Text, Tool, freeze
from harness.scenarios import Continuation, FollowUp, Scenario, ScenarioFormatError, _checks
from harness.scenarios._checks import SchemaName, check_schema, scenario_label, semantic_problems

CALL = FunctionCall("search", freeze({}), "c1")
ANSWER = FunctionResponse("search", "ok", "c1")


@pytest.mark.parametrize(
    ("scenario", "path", "expected"),
    [
        ("'a'", "history[1]", "f.json: scenario 'a' at history[1]: broken"),
        ("#3", "", "f.json: scenario #3: broken"),
        ("", "description", "f.json: at description: broken"),
        ("", "", "f.json: broken"),
    ],
)
def test_errors_read_as_one_sentence(scenario: str, path: str, expected: str) -> None:
    error = ScenarioFormatError("f.json", "broken", scenario=scenario, path=path)
    assert str(error) == expected
    assert (error.source, error.problem, error.scenario, error.path) == (
        "f.json",
        "broken",
        scenario,
        path,
    )
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("data", "index", "label"),
    [({"id": "x"}, 2, "'x'"), ({"id": ""}, 2, "#2"), ({}, None, ""), ([], 0, "#0")],
)
def test_scenarios_are_named_by_id_else_index(data: Any, index: int | None, label: str) -> None:
    assert scenario_label(data, index) == label


def test_fixture_file_errors_name_the_scenario_they_are_in() -> None:
    ok = {"id": "ok", "action": "fork", "directives": ["d"], "preset": {}, "history": []}
    broken = {**ok, "history": [{"role": "user"}]}
    file = {"description": "d", "scenarios": [ok, broken]}
    with pytest.raises(ScenarioFormatError) as caught:
        check_schema("fixtures.schema.json", file, source="f.json")
    assert str(caught.value) == (
        "f.json: scenario 'ok' at scenarios[1].history[0]: 'parts' is a required property"
    )
    del broken["id"]
    with pytest.raises(ScenarioFormatError, match=r"^f\.json: scenario #1 at scenarios\[1\]: "):
        check_schema("fixtures.schema.json", file, source="f.json")


def test_long_problems_are_shortened() -> None:
    data = {"id": "x", "action": "fork", "directives": ["d"], "preset": {}, "history": "y" * 999}
    with pytest.raises(ScenarioFormatError) as caught:
        check_schema("scenario.schema.json", data, source="f.json")
    assert caught.value.path == "history"
    assert len(caught.value.problem) == 240
    assert caught.value.problem.endswith("…")


def scenario(**fields: Any) -> Scenario:
    base: dict[str, Any] = {
        "id": "s",
        "action": "fork",
        "preset": Preset(),
        "history": (Message("user", (Text("hi"),)),),
        "directives": ("d",),
    }
    return Scenario(**(base | fields))


def test_a_sound_scenario_has_no_problems() -> None:
    calls = Message("model", (CALL,))
    assert list(semantic_problems(scenario(history=(Message("user", (Text("a"),)), calls)))) == []


def test_problems_come_in_document_order_with_their_paths() -> None:
    tools = (Tool("a"), Tool("b"), Tool("a"))
    found = list(
        semantic_problems(
            scenario(
                preset=Preset(tools=tools),
                default_tools=(Tool("z"), Tool("z")),
                history=(Message("user", (Text("a"),)), Message("user", (Text("b"),))),
            )
        )
    )
    assert found == [
        (("preset", "tools", 2), "tool 'a' is declared twice"),
        (("default_tools", 1), "tool 'z' is declared twice"),
        (
            ("history", 1),
            "has role 'user' where 'model' is due: a history alternates user/model starting "
            "with user",
        ),
    ]


def test_follow_ups_must_answer_their_reply() -> None:
    wrong_way = FollowUp(Message("model", (ANSWER,)), Message("user", (CALL,)))
    unanswered = FollowUp(Message("model", (CALL,)), Message("user", (Text("?"),)))
    continuation = Continuation("task", "p", follow_ups=(wrong_way, unanswered))
    found = list(semantic_problems(scenario(action="continuable", continuation=continuation)))
    base = ("continuation", "follow_ups")
    assert found == [
        ((*base, 0, "reply"), "a model reply holds function responses"),
        ((*base, 0, "message"), "a user message holds function calls"),
        ((*base, 1, "message"), "does not answer the calls of the reply one to one"),
    ]


# --- the fast path for a scenario's history ------------------------------------------------


class _Str(str):
    pass


class _Dict(dict[str, Any]):
    pass


_PARTS: list[Any] = [
    {"text": "hi"},
    {"text": ""},
    {"text": 1},
    {"text": None},
    {"text": _Str("sub")},
    {"text": "a", "thinking": {"text": "b"}},
    {},
    [],
    "text",
    _Dict(text="sub"),
    {"function_call": {"name": "f", "args": {}}},
    {"function_call": {"name": "f", "args": {"n": 1}, "id": "c1", "signature": "s"}},
    {"function_call": {"name": "", "args": {}}},
    {"function_call": {"name": "f"}},
    {"function_call": {"args": {}}},
    {"function_call": {"name": "f", "args": []}},
    {"function_call": {"name": "f", "args": None}},
    {"function_call": {"name": "f", "args": {}, "id": 1}},
    {"function_call": {"name": "f", "args": {}, "signature": None}},
    {"function_call": {"name": "f", "args": {}, "extra": 1}},
    {"function_call": {"name": 1, "args": {}}},
    {"function_call": {"name": "f", "args": _Dict()}},
    {"function_call": []},
    {"function_response": {"name": "f", "response": None}},
    {"function_response": {"name": "f", "response": [1, {}], "id": "c1", "is_error": True}},
    {"function_response": {"name": "f", "response": 1, "is_error": False}},
    {"function_response": {"name": "f", "response": 1, "is_error": 1}},
    {"function_response": {"name": "f", "response": 1, "is_error": 0}},
    {"function_response": {"name": "f", "response": 1, "is_error": None}},
    {"function_response": {"name": "f"}},
    {"function_response": {"response": 1}},
    {"function_response": {"name": "", "response": 1}},
    {"function_response": {"name": "f", "response": 1, "id": None}},
    {"function_response": {"name": "f", "response": 1, "extra": 1}},
    {"thinking": {"text": "t"}},
    {"thinking": {"text": 1}},
    {"image": {"mime_type": "image/png", "data": "AAAA"}},
    {"image": {}},
    {"opaque": {"kind": "k", "value": 1}},
    {"opaque": {}},
    {"other": "x"},
]


def _messages() -> list[Any]:
    messages: list[Any] = [None, [], "m", {}, {"role": "user"}, {"parts": [{"text": "a"}]}]
    for role in ("user", "model", "system", "tool", 1, None, _Str("user")):
        messages += [{"role": role, "parts": [part]} for part in _PARTS]
        messages += [{"role": role, "parts": []}, {"role": role, "parts": {"text": "a"}}]
    messages += [{"parts": [p], "role": "model"} for p in _PARTS]
    messages += [{"role": "user", "parts": [{"text": "a"}, p]} for p in _PARTS]
    messages += [{"role": "user", "parts": [{"text": "a"}], "extra": 1}]
    messages += [_Dict(role="user", parts=[{"text": "a"}])]
    return messages


def test_the_fast_path_is_taken_for_the_shipped_schema() -> None:
    assert _checks._plain_history() is not None
    assert _checks._plain_message({"role": "user", "parts": [{"text": "a"}]})


@pytest.mark.parametrize("message", _messages())
def test_a_message_is_plain_only_if_the_schema_says_valid(message: Any) -> None:
    plain = _checks._plain_history()
    assert plain is not None
    _, message_validator = plain
    valid = message_validator.is_valid(message)
    assert valid == _checks._validator("scenario.schema.json").is_valid(_with_history([message]))
    if _checks._plain_message(message):
        assert valid


def _with_history(history: Any) -> dict[str, Any]:
    return {"id": "s", "action": "fork", "directives": ["d"], "preset": {}, "history": history}


def _full_check(data: Any, name: SchemaName = "scenario.schema.json") -> str | None:
    """check_schema with no fast path: the full validator's best match."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_checks, "_plainly_valid", lambda data: False)
        patch.setattr(_checks, "_plain_fixture_file", lambda data: False)
        return _checked(data, name)


def _checked(data: Any, name: SchemaName = "scenario.schema.json") -> str | None:
    try:
        check_schema(name, data, source="f.json")
    except ScenarioFormatError as e:
        return str(e)
    return None


def test_the_fast_path_decides_and_names_errors_as_the_full_check() -> None:
    messages = _messages()
    good = [{"role": "user", "parts": [{"text": "q"}]}]
    datas: list[Any] = [None, [], {}, _Dict(_with_history(good)), _with_history(None)]
    datas += [_with_history(good * 3 + [m] + good) for m in messages]
    datas += [{**_with_history(good), "action": "siblings"}, {**_with_history(good), "x": 1}]
    datas += [{**_with_history([m]), "preset": {"tools": 1}} for m in messages[::7]]
    datas += [{k: v for k, v in _with_history(good).items() if k != "history"}]
    follow = {"reply": messages[20], "message": messages[30]}
    continuable = {"task": "t", "parent_id": "p", "follow_ups": [follow]}
    datas += [{**_with_history(good), "action": "continuable", "continuation": continuable}]
    outcomes = [_checked(d) for d in datas]
    assert outcomes == [_full_check(d) for d in datas]
    assert None in outcomes
    assert len({o for o in outcomes if o is not None}) > 10


def test_no_fast_path_for_a_history_schema_it_was_not_written_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    changed = orjson.loads(orjson.dumps(_checks._PLAIN_MESSAGE))
    changed["properties"]["parts"]["minItems"] = 2
    monkeypatch.setattr(_checks, "_PLAIN_MESSAGE", changed)
    _checks._plain_history.cache_clear()
    _checks._plain_fixtures.cache_clear()
    try:
        assert _checks._plain_history() is None
        assert _checks._plain_fixtures() is None
        assert not _checks._plainly_valid(_with_history([]))
        assert _checked(_with_history([])) is None
        file = {"description": "d", "scenarios": [_with_history([])]}
        assert not _checks._plain_fixture_file(file)
        assert _checked(file, "fixtures.schema.json") is None
    finally:
        _checks._plain_history.cache_clear()
        _checks._plain_fixtures.cache_clear()


_KEYS = st.sampled_from(["role", "parts", "text", "function_call", "function_response"])
_FIELDS = st.sampled_from(["name", "args", "id", "signature", "response", "is_error", "x"])
_LEAF = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["", "f", "user"])
_VALUE = st.recursive(
    _LEAF | st.just({}),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS | _FIELDS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_VALUE)
def test_a_random_message_is_plain_only_if_the_schema_says_valid(message: Any) -> None:
    plain = _checks._plain_history()
    assert plain is not None
    if _checks._plain_message(message):
        assert plain[1].is_valid(message)
    data = _with_history([message])
    assert _checked(data) == _full_check(data)


def test_fixture_files_are_checked_as_by_the_full_check() -> None:
    assert _checks._plain_fixtures() is not None
    good = _with_history([{"role": "user", "parts": [{"text": "q"}]}])
    files: list[Any] = [None, [], {}, {"description": "d"}, {"scenarios": [good]}]
    files += [{"description": d, "scenarios": [good]} for d in ("", 1, "d", None)]
    files += [{"description": "d", "scenarios": s} for s in ([], None, {}, [good] * 3)]
    files += [{"description": "d", "scenarios": [good], "$schema": v} for v in ("s", 1)]
    files += [{"description": "d", "scenarios": [good], "x": 1}]
    files += [_Dict(description="d", scenarios=[good])]
    files += [{"description": "d", "scenarios": [good, _with_history([m])]} for m in _messages()]
    files += [{"description": "d", "scenarios": [good, {**good, "x": 1}, {"id": 1}]}]
    outcomes = [_checked(f, "fixtures.schema.json") for f in files]
    assert outcomes == [_full_check(f, "fixtures.schema.json") for f in files]
    assert None in outcomes
    assert len({o for o in outcomes if o is not None}) > 10
