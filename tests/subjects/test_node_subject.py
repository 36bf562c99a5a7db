"""The Node example subject (examples/node-subject/subject.js) over the protocol: valid bodies
in every dialect whose children keep the parent's prefix, for each history ending."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from harness.dialects import ParsedBody, get_dialect
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
)
from harness.prefix import compare
from harness.scenarios import Continuation, Scenario
from harness.subjects import ReferenceSubject, SubprocessOptions, SubprocessSubject

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

SUBJECT_JS = Path(__file__).resolve().parents[2] / "examples" / "node-subject" / "subject.js"
DIALECTS = ("anthropic", "gemini", "openai")
SEARCH = Tool(
    "search",
    "Search the code base.",
    freeze(
        {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
        }
    ),
)
AGENT = Tool(
    "agent", "Fork a worker.", freeze({"type": "object", "properties": {"d": {"type": "string"}}})
)
PRESET = Preset(
    ("You are a careful agent.", "Answer in English — or français."),
    (SEARCH, AGENT),
    Settings(
        model="m-1",
        temperature=0.2,
        max_output_tokens=2048,
        stop=("END",),
        thinking=ThinkingConfig(mode="enabled", budget_tokens=1024, effort="low"),
        tool_choice=ToolChoice("auto"),
        output_schema=OutputSchema(freeze({"type": "object"}), name="answer"),
    ),
)
FORK = FunctionCall("agent", freeze({"d": "look"}), id="c9")
OPENING = (
    Message("user", (Text("Find the bug ✓"), Image(mime_type="image/png", data="iVBOR"))),
    Message(
        "model",
        (
            Thinking("let me search", signature="sig"),
            FunctionCall("search", freeze({"query": "bug", "limit": 3}), id="c1"),
        ),
    ),
    Message("user", (FunctionResponse("search", freeze({"hits": ["a.py"]}), id="c1"),)),
)
ENDINGS = {
    "model": (*OPENING, Message("model", (Text("It is in a.py."),))),
    "model-calls": (
        *OPENING,
        Message(
            "model",
            (Text("Forking."), FORK, FunctionCall("search", freeze({"query": "x"}), id="c10")),
        ),
    ),
    "user": (
        *OPENING,
        Message("model", (Text("It is in a.py."),)),
        Message("user", (Text("Now fork."),)),
    ),
}


@pytest.fixture(scope="module")
def node() -> Iterator[SubprocessSubject]:
    with SubprocessSubject(["node", str(SUBJECT_JS)], SubprocessOptions(validate=True)) as subject:
        yield subject


def parse(dialect: str, body: bytes | None) -> ParsedBody:
    assert body is not None
    parsed = get_dialect(dialect).parse(orjson.loads(body))
    assert parsed.request is not None  # the whole body reads in the neutral model
    return parsed


def test_it_names_itself(node: SubprocessSubject) -> None:
    assert node.name == "node-example"
    assert node.implementation.language == "javascript"
    assert node.dialects == DIALECTS
    assert node.lifecycles == ("one-shot",)


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_fork_keeps_the_parent_prefix(node: SubprocessSubject, dialect: str, ending: str) -> None:
    scenario = Scenario(f"fork-{ending}", "fork", PRESET, ENDINGS[ending], ("look",))
    outcome = node.assemble(scenario, dialect)
    assert outcome.status == "assembled", outcome.message
    parent, (child,) = parse(dialect, outcome.parent), [parse(dialect, c) for c in outcome.children]
    assert compare(parent, child).preserved
    assert child.request.preset == parent.request.preset
    assert child.request.history[-1].text.endswith("Directive: look") or ending == "model-calls"
    # the parent is rendered exactly as the harness's own dialect renders it
    assert outcome.parent == ReferenceSubject().assemble(scenario, dialect).parent


@pytest.mark.parametrize("dialect", DIALECTS)
def test_open_calls_get_identical_placeholders_and_an_acknowledgement(
    node: SubprocessSubject, dialect: str
) -> None:
    scenario = Scenario("calls", "fork", PRESET, ENDINGS["model-calls"], ("look",))
    child = parse(dialect, node.assemble(scenario, dialect).children[0]).request.history
    closing, ack, task = child[-3:]
    assert [(r.id, r.name) for r in closing.function_responses] == [
        ("c9", "agent"),
        ("c10", "search"),
    ]
    assert len({orjson.dumps(r.response) for r in closing.function_responses}) == 1
    assert "Directive: look" in closing.text
    assert (ack.role, task.text) == ("model", "Begin.")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_siblings_differ_only_in_their_directive(node: SubprocessSubject, dialect: str) -> None:
    scenario = Scenario("sib", "siblings", PRESET, ENDINGS["model-calls"], ("look", "read"))
    outcome = node.assemble(scenario, dialect)
    a, b = outcome.children
    cut = a.rindex(b"look")
    assert a[:cut] == b[:cut]
    assert b[cut:].startswith(b"read")
    parent = parse(dialect, outcome.parent)
    assert all(compare(parent, parse(dialect, c)).preserved for c in outcome.children)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_fork_inside_a_fork_child_is_rejected(node: SubprocessSubject, dialect: str) -> None:
    boilerplate = Message(
        "user", (Text("<fork-boilerplate>\nrules\n</fork-boilerplate>\n\nDirective: x"),)
    )
    history = (boilerplate, Message("model", (FORK,)))
    for scenario in (
        Scenario("tagged", "fork", PRESET, history, ("again",)),
        Scenario("known", "fork", PRESET, ENDINGS["model"], ("again",), known_fork_child=True),
    ):
        outcome = node.assemble(scenario, dialect)
        assert outcome.status == "rejected"
        assert outcome.children == ()
        assert "refused" in (outcome.message or "")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_without_a_snapshot_it_degrades_to_fallback_and_default_tools(
    node: SubprocessSubject, dialect: str
) -> None:
    scenario = Scenario(
        "first-turn",
        "fork",
        PRESET,
        (Message("user", (Text("hi"),)),),
        ("look",),
        snapshot=False,
        default_tools=(SEARCH,),
    )
    outcome = node.assemble(scenario, dialect)
    assert (outcome.status, outcome.parent) == ("assembled", None)
    child = parse(dialect, outcome.children[0]).request
    assert child.preset.tools == (SEARCH,)
    assert len(child.preset.system) == 1
    assert "worker" in child.preset.system[0]


def test_other_lifecycles_are_skipped_and_unknown_dialects_errored(node: SubprocessSubject) -> None:
    spawn = Scenario("spawn", "spawn", PRESET, ENDINGS["model-calls"], prompt="Find it.")
    continuable = Scenario(
        "cont", "continuable", PRESET, ENDINGS["model"], continuation=Continuation("do", "p1")
    )
    for scenario in (spawn, continuable):
        outcome = node.assemble(scenario, "openai")
        assert outcome.status == "skipped"
        assert scenario.action in (outcome.message or "")
    outcome = node.assemble(Scenario("f", "fork", PRESET, ENDINGS["model"], ("x",)), "klingon")
    assert (outcome.status, outcome.message) == ("errored", "unknown dialect klingon")
