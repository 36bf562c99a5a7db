from typing import Any

import pytest

from harness.model import FunctionCall, FunctionResponse, Message, Preset, Text, Tool, freeze
from harness.scenarios import Continuation, FollowUp, Scenario, ScenarioFormatError
from harness.scenarios._checks import check_schema, scenario_label, semantic_problems

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
