"""The fixture corpus: valid against the schemas shipped beside it, loadable, covering every
lifecycle of docs/protocol.md#lifecycles, and run by the reference subject in every dialect."""

import os
from pathlib import Path

import orjson
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from harness.assemblers import DEFAULT_WORDING
from harness.dialects import all_dialects
from harness.model import FunctionCall, Image, Text, Thinking
from harness.scenarios import SEND_MESSAGE, Scenario, history_ending, load_fixtures
from harness.subjects import ReferenceSubject

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
FILES = sorted(p for p in FIXTURES.glob("*.json") if not p.name.endswith(".schema.json"))
FAMILIES = ("continuable", "degradation", "found", "oneshot", "recursion", "siblings", "spawn")
"""One file per behaviour family (docs/protocol.md), plus `found`: scenarios `check` shrank."""


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[Scenario]]:
    return {file.stem: load_fixtures(file) for file in FILES}


def test_one_file_per_behaviour_family() -> None:
    assert tuple(f.stem for f in FILES) == FAMILIES


@pytest.mark.parametrize("name", ["scenario.schema.json", "fixtures.schema.json"])
def test_schemas_ship_beside_the_fixtures_as_relative_symlinks(name: str) -> None:
    link = FIXTURES / name
    assert link.is_symlink()
    assert os.readlink(link) == f"../harness/scenarios/{name}"
    assert link.resolve() == ROOT / "harness" / "scenarios" / name


@pytest.mark.parametrize("file", FILES, ids=[f.name for f in FILES])
def test_fixture_files_are_valid_against_the_shipped_schema(file: Path) -> None:
    """Validated the way another language would: with the schemas found in fixtures/ alone."""
    scenario_schema, fixtures_schema = (
        orjson.loads((FIXTURES / f"{name}.schema.json").read_bytes())
        for name in ("scenario", "fixtures")
    )
    for schema in (scenario_schema, fixtures_schema):
        Draft202012Validator.check_schema(schema)
    registry: Registry[dict[str, object]] = Registry().with_resource(
        scenario_schema["$id"], Resource.from_contents(scenario_schema)
    )
    validator = Draft202012Validator(fixtures_schema, registry=registry)
    data = orjson.loads(file.read_bytes())
    assert [e.message for e in validator.iter_errors(data)] == []
    assert data["$schema"] == "./fixtures.schema.json"


def test_the_whole_corpus_loads_with_unique_ids(corpus: dict[str, list[Scenario]]) -> None:
    everything = load_fixtures(FIXTURES)
    assert [s.id for s in everything] == [s.id for f in FAMILIES for s in corpus[f]]
    assert len({s.id for s in everything}) == len(everything) >= 20


def test_fixtures_are_readable_json(corpus: dict[str, list[Scenario]]) -> None:
    for file in FILES:
        text = file.read_text(encoding="utf-8")
        assert text.endswith("}\n")
        assert "\n  " in text
        assert "\t" not in text
        assert "\\u" not in text, f"{file.name}: write unicode as it is, not escaped"


def test_oneshot_covers_the_three_endings_and_parallel_calls(
    corpus: dict[str, list[Scenario]],
) -> None:
    forks = corpus["oneshot"]
    assert {history_ending(s.history) for s in forks} == {"model", "model_calls", "user"}
    last_calls = [s.history[-1].function_calls for s in forks if s.history[-1].role == "model"]
    assert any({c.name for c in calls} == {"agent"} for calls in last_calls)
    assert any(len({c.name for c in calls}) >= 3 for calls in last_calls), "parallel calls"
    assert any(len(m.function_calls) >= 3 for s in forks for m in s.history[:-1])


def test_siblings_come_in_twos_and_threes(corpus: dict[str, list[Scenario]]) -> None:
    assert sorted(len(s.directives) for s in corpus["siblings"]) == [2, 3]


def test_degradation_covers_first_turn_and_empty_history(
    corpus: dict[str, list[Scenario]],
) -> None:
    degraded = corpus["degradation"]
    assert all(not s.snapshot and s.default_tools for s in degraded)
    assert sorted(len(s.history) for s in degraded) == [0, 1]


def test_recursion_uses_the_reference_boilerplate(corpus: dict[str, list[Scenario]]) -> None:
    """The pasted child messages are the reference's wording, to the byte."""
    recursion = corpus["recursion"]
    opening = DEFAULT_WORDING.child_message("")
    marked = [
        p.text
        for s in recursion
        for m in s.history
        for p in m.parts
        if isinstance(p, Text) and DEFAULT_WORDING.open_tag in p.text
    ]
    assert len(marked) == 2
    assert all(text.startswith(opening) for text in marked)
    # the lifecycle fact travels in its field: the tag is only the reference's own wording
    assert all(s.known_fork_child for s in recursion)


def test_every_fixture_carrying_the_reference_tag_says_it_is_a_fork_child(
    corpus: dict[str, list[Scenario]],
) -> None:
    for scenarios in corpus.values():
        for s in scenarios:
            if s.mentions(DEFAULT_WORDING.open_tag) and s.action in ("fork", "siblings"):
                assert s.known_fork_child, s.id


def test_continuable_covers_every_divergence_and_follow_ups(
    corpus: dict[str, list[Scenario]],
) -> None:
    specs = [s.continuation for s in corpus["continuable"] if s.continuation is not None]
    assert len(specs) == len(corpus["continuable"])
    assert any(c.tool_filter is not None and SEND_MESSAGE not in c.tool_filter for c in specs)
    assert any(c.persona for c in specs)
    assert any(c.output_tool is not None and c.output_section for c in specs)
    assert any(len(c.follow_ups) >= 2 for c in specs)
    assert any(c.tool_filter is None and c.persona is None and c.output_tool is None for c in specs)


def test_spawn_delegates_with_a_prompt(corpus: dict[str, list[Scenario]]) -> None:
    for s in corpus["spawn"]:
        calls = s.history[-1].function_calls
        assert [c.name for c in calls] == [s.fork_tool]
        assert isinstance(calls[0], FunctionCall)
        assert s.prompt == calls[0].args["prompt"]


def test_images_thinking_and_unicode_appear(corpus: dict[str, list[Scenario]]) -> None:
    parts = [p for f in FAMILIES for s in corpus[f] for m in s.history for p in m.parts]
    images = [p for p in parts if isinstance(p, Image)]
    assert {p.data is not None for p in images} == {True, False}
    thoughts = [p for p in parts if isinstance(p, Thinking)]
    assert any(t.signature for t in thoughts)
    assert any(t.redacted for t in thoughts)
    assert any(isinstance(p, Text) and not p.text.isascii() for p in parts)


@pytest.mark.parametrize("dialect", tuple(all_dialects()))
def test_the_reference_runs_every_fixture(corpus: dict[str, list[Scenario]], dialect: str) -> None:
    subject = ReferenceSubject()
    for family, scenarios in corpus.items():
        for s in scenarios:
            outcome = subject.assemble(s, dialect)
            expected = "rejected" if family == "recursion" else "assembled"
            assert outcome.status == expected, f"{s.id} in {dialect}: {outcome.message}"
            assert bool(outcome.children) == (expected == "assembled"), s.id
