from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings

from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    OutputSchema,
    Preset,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
    thaw,
)
from harness.scenarios import (
    Continuation,
    FollowUp,
    Scenario,
    ScenarioFormatError,
    load_fixtures,
    scenario_from_json,
    scenario_to_json,
)
from harness.strategies import scenarios

SCHEMA = freeze({"type": "object", "properties": {"z": {"type": "string"}, "a": {}}})


def everything() -> Scenario:
    """A scenario with every field and part kind set to something other than its default."""
    call = FunctionCall("search", freeze({"q": "x", "a": [1, 2.5, None]}), "c1", "c2ln")
    return Scenario(
        id="all.fields_1",
        action="continuable",
        preset=Preset(
            system=("sys ①", "second"),
            tools=(Tool("search", "Search.", SCHEMA), Tool("bare")),
            settings=Settings(
                model="m",
                temperature=0.5,
                top_p=1,
                top_k=40,
                max_output_tokens=100,
                stop=("END",),
                thinking=ThinkingConfig("adaptive", 2048, "high", True),
                tool_choice=ToolChoice("tool", ("search",)),
                output_schema=OutputSchema(SCHEMA, "answer", False),
                extra=freeze({"openai": {"seed": 7, "metadata": {"b": 1, "a": 2}}}),
            ),
        ),
        history=(
            Message(
                "user",
                (
                    Text("look"),
                    Image(mime_type="image/png", data="iVBO"),
                    Image(url="https://x.example/a.png", detail="low"),
                ),
            ),
            Message("model", (Thinking("hmm", "sig"), Thinking("opaque", redacted=True), call)),
            Message("user", (FunctionResponse("search", "boom", "c1", is_error=True),)),
            Message("model", (Text("done"),)),
        ),
        directives=(),
        fork_tool="spawn_it",
        snapshot=False,
        known_fork_child=True,
        default_tools=(Tool("bare"),),
        continuation=Continuation(
            task="t",
            parent_id='p"1',
            tool_filter=(),
            persona=("you",),
            output_tool=Tool("out", None, SCHEMA),
            output_section="answer with out",
            follow_ups=(
                FollowUp(
                    Message("model", (FunctionCall("search", freeze({}), "f1"),)),
                    Message("user", (FunctionResponse("search", None, "f1"),)),
                ),
            ),
        ),
        prompt="p",
        answer="a",
        description="d",
        tags=("x", "y"),
    )


def test_every_field_round_trips_through_json_text() -> None:
    scenario = everything()
    text = orjson.dumps(scenario_to_json(scenario))
    assert scenario_from_json(orjson.loads(text)) == scenario


@settings(max_examples=50)
@given(scenarios())
def test_generated_scenarios_round_trip(scenario: Scenario) -> None:
    assert scenario_from_json(scenario_to_json(scenario)) == scenario


def test_key_order_is_kept_both_ways() -> None:
    data = scenario_to_json(everything())
    assert list(data["preset"]["tools"][0]["parameters"]["properties"]) == ["z", "a"]
    assert list(data["history"][1]["parts"][2]["function_call"]["args"]) == ["q", "a"]
    data["history"][1]["parts"][2]["function_call"]["args"] = {"b": 1, "a": 2}
    call = scenario_from_json(data).history[1].parts[2]
    assert isinstance(call, FunctionCall)
    assert list(call.args) == ["b", "a"]  # type: ignore[arg-type]
    assert call.args != freeze({"a": 2, "b": 1})


def test_defaults_are_left_out() -> None:
    scenario = Scenario("tiny", "fork", Preset(), (), directives=("go",))
    assert scenario_to_json(scenario) == {
        "id": "tiny",
        "action": "fork",
        "directives": ["go"],
        "preset": {"system": [], "tools": [], "settings": {}},
        "history": [],
    }


def test_a_null_response_is_kept() -> None:
    data = scenario_to_json(everything())
    message = data["continuation"]["follow_ups"][0]["message"]
    assert message["parts"][0]["function_response"] == {
        "id": "f1",
        "name": "search",
        "response": None,
    }


def bad(**changes: Any) -> dict[str, Any]:
    data = scenario_to_json(everything())
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            bad(history=[{"role": "user", "parts": [{"function_call": {"args": {}}}]}]),
            "src.json: scenario 'all.fields_1' at history[0].parts[0].function_call: "
            "'name' is a required property",
        ),
        ({"action": "fork", "directives": ["x"]}, "src.json: 'id' is a required property"),
        (
            bad(id="two words"),
            "src.json: scenario 'two words' at id: 'two words' does not match "
            "'^[A-Za-z0-9][A-Za-z0-9._-]*$'",
        ),
        (
            bad(history=[{"role": "model", "parts": [{"text": "hi"}]}]),
            "src.json: scenario 'all.fields_1' at history[0]: has role 'model' where 'user' is "
            "due: a history alternates user/model starting with user",
        ),
        (
            bad(action="fork", directives=[]),
            "src.json: scenario 'all.fields_1' at directives: [] should be non-empty",
        ),
        (
            bad(preset={"tools": [{"name": "a"}, {"name": "a"}]}),
            "src.json: scenario 'all.fields_1' at preset.tools[1]: tool 'a' is declared twice",
        ),
    ],
)
def test_a_bad_scenario_is_one_sentence_naming_source_scenario_and_path(
    data: dict[str, Any], message: str
) -> None:
    with pytest.raises(ScenarioFormatError) as caught:
        scenario_from_json(data, source="src.json")
    assert str(caught.value) == message


def write(path: Path, *scenarios: dict[str, Any]) -> Path:
    path.write_bytes(orjson.dumps({"description": "test file", "scenarios": list(scenarios)}))
    return path


def test_load_fixtures_reads_a_folder_in_name_order_and_skips_schemas(tmp_path: Path) -> None:
    one = scenario_to_json(Scenario("one", "fork", Preset(), (), directives=("x",)))
    two = {**one, "id": "two"}
    write(tmp_path / "b.json", one)
    write(tmp_path / "a.json", two)
    (tmp_path / "x.schema.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("not a fixture")
    assert [s.id for s in load_fixtures(tmp_path)] == ["two", "one"]
    assert [s.id for s in load_fixtures(str(tmp_path / "b.json"))] == ["one"]


def test_a_violating_fixture_names_file_scenario_and_path(tmp_path: Path) -> None:
    good = scenario_to_json(Scenario("fine", "fork", Preset(), (), directives=("x",)))
    broken = {**good, "id": "fork-model-calls"}
    broken["history"] = [
        {"role": "user", "parts": [{"text": "a"}]},
        {"role": "model", "parts": [{"text": "b"}]},
        {"role": "user", "parts": [{"text": "c"}]},
        {"role": "model", "parts": [{"function_call": {"id": "1", "args": {}}}]},
    ]
    no_id = {k: v for k, v in good.items() if k != "id"}
    file = write(tmp_path / "oneshot.json", good, good | {"id": "x"}, broken)
    with pytest.raises(ScenarioFormatError) as caught:
        load_fixtures(file)
    assert str(caught.value) == (
        f"{file}: scenario 'fork-model-calls' at scenarios[2].history[3].parts[0].function_call: "
        "'name' is a required property"
    )
    write(file, good, no_id)
    with pytest.raises(ScenarioFormatError, match=r"scenario #1 at scenarios\[1\]: 'id' is"):
        load_fixtures(file)


def test_semantic_problems_name_their_path_in_the_file(tmp_path: Path) -> None:
    data = scenario_to_json(everything())
    data["continuation"]["follow_ups"][0]["message"]["parts"] = [{"text": "no answer"}]
    file = write(tmp_path / "c.json", data)
    with pytest.raises(ScenarioFormatError) as caught:
        load_fixtures(file)
    assert str(caught.value) == (
        f"{file}: scenario 'all.fields_1' at scenarios[0].continuation.follow_ups[0].message: "
        "does not answer the calls of the reply one to one"
    )


def test_duplicate_ids_across_files_are_an_error(tmp_path: Path) -> None:
    one = scenario_to_json(Scenario("same", "fork", Preset(), (), directives=("x",)))
    write(tmp_path / "a.json", one)
    write(tmp_path / "b.json", {**one, "id": "other"}, one)
    with pytest.raises(ScenarioFormatError) as caught:
        load_fixtures(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'b.json'}: scenario 'same' at scenarios[1].id: duplicate id, first used "
        f"in {tmp_path / 'a.json'} at scenarios[0]"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'{"description": "x", "scenarios": [', "is not valid JSON"),
        (b'{"scenarios": []}', "'description' is a required property"),
        (b'{"description": "x", "scenarios": []}', "at scenarios: [] should be non-empty"),
    ],
)
def test_broken_files_are_one_sentence(tmp_path: Path, content: bytes, problem: str) -> None:
    file = tmp_path / "f.json"
    file.write_bytes(content)
    with pytest.raises(ScenarioFormatError, match=r"^.*f\.json: ") as caught:
        load_fixtures(file)
    assert problem in str(caught.value)


def test_missing_paths_and_empty_folders_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ScenarioFormatError, match="holds no fixture files"):
        load_fixtures(tmp_path)
    with pytest.raises(ScenarioFormatError, match="no such file"):
        load_fixtures(tmp_path / "missing.json")


CORPUS = Path(__file__).parents[2] / "fixtures"


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    data = (CORPUS / "oneshot.json").read_bytes()
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + data)
    assert load_fixtures(tmp_path / "bom.json") == load_fixtures(CORPUS / "oneshot.json")


@pytest.mark.parametrize("depth", [200, 254, 300, 600, 1_000, 1_020])
@pytest.mark.parametrize("where", ["tool schema", "setting"])
def test_deep_nesting_is_read_or_refused_naming_the_file(
    tmp_path: Path, depth: int, where: str
) -> None:
    """Up to some 300 levels a deep schema is read; deeper, one sentence names the file."""
    fixture = orjson.loads((CORPUS / "oneshot.json").read_bytes())
    scenario = fixture["scenarios"][0]
    preset = scenario["preset"]
    if where == "tool schema":
        preset["tools"][0]["parameters"] = {"type": "object", "x": "@@"}
    else:
        preset.setdefault("settings", {})["output_schema"] = {"schema": {"x": "@@"}, "name": "a"}
    fixture["scenarios"] = [scenario]
    file = tmp_path / "deep.json"
    file.write_bytes(orjson.dumps(fixture).replace(b'"@@"', b"[" * depth + b"]" * depth))
    if depth <= 300:
        (loaded,) = load_fixtures(file)
        assert loaded.id == scenario["id"]
        return
    with pytest.raises(ScenarioFormatError, match=r"nested too deeply|depth limit exceeded") as e:
        load_fixtures(file)
    assert str(e.value).startswith(f"{file}: ")


class _Dict(dict[str, Any]):
    """A dict subclass, which the fast path leaves to ``thaw``."""


class _Text(Text):
    __slots__ = ()


EDGE_VALUES: list[Any] = [
    None,
    True,
    1,
    1.0,
    "1",
    (),
    (1, True, 1.0, None, "x", (2,), freeze({"k": False})),
    freeze({"b": 1, "a": True, "c": {"z": [1.0, None]}}),
    {"plain": [1, {"n": True}], "t": (1,)},
    [1, (2, [3])],
    _Dict(q=_Dict(r=(1,))),
]
EDGE_PARTS: list[Any] = [
    Text(""),
    Text("t", signature="s"),
    _Text("sub"),
    *(FunctionCall("f", v, "c1", "sig") for v in EDGE_VALUES),
    FunctionCall("f", freeze({}), None, None),
    *(FunctionResponse("f", v, "c1", True) for v in EDGE_VALUES),
    FunctionResponse("f", None, None, False),
    FunctionResponse("f", "r", "c2", 1),  # type: ignore[arg-type]
    FunctionResponse("f", "r", "c2", 0),  # type: ignore[arg-type]
    Thinking("th", "sig", True),
    Image("image/png", "AAAA"),
]


def _general_part_json(part: Any) -> dict[str, Any]:
    """A part's JSON as the scenario schema spells it, the plain way: fields that are None
    (and ``is_error`` when false) left out, values through ``thaw``."""
    from harness.scenarios._json import _other_part_to_json

    def given(**fields: Any) -> dict[str, Any]:
        return {k: v for k, v in fields.items() if v is not None}

    if isinstance(part, Text):
        return {"text": part.text}
    if isinstance(part, FunctionCall):
        call = given(id=part.id, name=part.name) | {"args": thaw(part.args)}
        return {"function_call": call | given(signature=part.signature)}
    if isinstance(part, FunctionResponse):
        response = given(id=part.id, name=part.name) | {"response": thaw(part.response)}
        return {"function_response": response | given(is_error=part.is_error or None)}
    return _other_part_to_json(part)


@pytest.mark.parametrize("part", EDGE_PARTS, ids=repr)
def test_the_fast_part_encoding_is_the_general_one(part: Any) -> None:
    """Texts, calls and responses are built with no keyword dict and with ``thaw`` skipped on
    leaves; the plain way gives the same data of the same types, so the same JSON bytes."""
    from harness.scenarios._json import _part_to_json

    fast, general = _part_to_json(part), _general_part_json(part)
    assert repr(fast) == repr(general)  # types too: 1, 1.0 and True, lists and tuples
    assert orjson.dumps(fast) == orjson.dumps(general)
    assert list(fast) == list(general)
    assert [list(v) for v in fast.values()] == [list(v) for v in general.values()]
