"""The Node example subject (examples/node-subject/subject.js) over the protocol: valid bodies
in every dialect whose children keep the parent's prefix, for each history ending; parents
rendered as the reference renders them; the same-scenario feature, spoken in raw lines; and a
bug planted in its openai-responses children (NODE_SUBJECT_BUG) caught by the rule that names
it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.dialects import ParsedBody, get_dialect
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Opaque,
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
from harness.protocol import assemble_request, encode_line, start_request, stop_request
from harness.scenarios import Continuation, Scenario, scenario_to_json
from harness.subjects import ReferenceSubject, SubprocessOptions, SubprocessSubject

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

ROOT = Path(__file__).resolve().parents[2]
SUBJECT_JS = ROOT / "examples" / "node-subject" / "subject.js"
DIALECTS = ("anthropic", "gemini", "openai", "openai-responses")
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
    assert node.implementation.features == ("same-scenario",)  # read by the harness


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


# --- same-scenario, in raw protocol lines ---------------------------------------------------

NO_SCENARIO = "same_scenario, but no scenario was sent before it"
SAME = {
    "fork": Scenario("fork", "fork", PRESET, ENDINGS["model-calls"], ("look",)),
    "siblings": Scenario("sib", "siblings", PRESET, ENDINGS["user"], ("look", "read")),
    "rejected": Scenario("known", "fork", PRESET, ENDINGS["model"], ("x",), known_fork_child=True),
    "fallback": Scenario(
        "first", "fork", PRESET, (Message("user", (Text("hi"),)),), ("look",), snapshot=False
    ),
    "skipped": Scenario("spawn", "spawn", PRESET, ENDINGS["model"], prompt="Find it."),
}


def full(seq: int, dialect: str, scenario: Scenario) -> dict[str, Any]:
    return assemble_request(seq, dialect, scenario_to_json(scenario))


def short(seq: int, dialect: str) -> dict[str, Any]:
    return {"cmd": "assemble", "seq": seq, "dialect": dialect, "same_scenario": True}


def exchange(*requests: dict[str, Any]) -> list[bytes]:
    """Start one Node process, write start, ``requests`` and stop as raw lines, and return
    its reply lines as written (the start reply first)."""
    env = {k: v for k, v in os.environ.items() if k != "NODE_SUBJECT_BUG"}
    lines = b"".join(map(encode_line, (start_request(), *requests, stop_request())))
    done = subprocess.run(
        ["node", str(SUBJECT_JS)],
        input=lines,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    replies = done.stdout.splitlines()
    assert len(replies) == 1 + len(requests), done.stderr.decode()
    return replies


def unnumbered(reply: bytes, seq: int) -> bytes:
    """A reply line without its leading seq, to compare replies to different requests."""
    head = b'{"seq":%d,' % seq
    assert reply.startswith(head), reply[:80]
    return reply[len(head) :]


def test_the_start_reply_declares_same_scenario() -> None:
    (ready,) = exchange()
    assert list(json.loads(ready)) == ["ok", "version", "implementation", "features"]
    assert json.loads(ready)["features"] == ["same-scenario"]


@pytest.mark.parametrize("kind", SAME)
def test_a_short_assemble_answers_as_the_full_one_in_each_dialect(kind: str) -> None:
    scenario = SAME[kind]
    _, *fulls = exchange(*(full(seq, d, scenario) for seq, d in enumerate(DIALECTS, 1)))
    want = [unnumbered(reply, seq) for seq, reply in enumerate(fulls, 1)]
    # one full assemble, then short ones in every dialect, its own included
    _, first, *shorts = exchange(
        full(1, DIALECTS[1], scenario), *(short(seq, d) for seq, d in enumerate(DIALECTS, 2))
    )
    assert unnumbered(first, 1) == want[1]
    assert [unnumbered(reply, seq) for seq, reply in enumerate(shorts, 2)] == want
    status = json.loads(fulls[0])["status"]
    assert status == {"rejected": "rejected", "skipped": "skipped"}.get(kind, "assembled")


def test_a_short_assemble_first_is_errored_and_the_process_goes_on() -> None:
    scenario = SAME["fork"]
    replies = exchange(short(1, "gemini"), full(2, "gemini", scenario), short(3, "gemini"))
    assert json.loads(replies[1]) == {"seq": 1, "status": "errored", "message": NO_SCENARIO}
    assert json.loads(replies[2])["status"] == "assembled"
    assert unnumbered(replies[3], 3) == unnumbered(replies[2], 2)


def test_an_assemble_with_neither_scenario_nor_same_scenario_is_errored() -> None:
    bare = {"cmd": "assemble", "seq": 1, "dialect": "gemini"}
    unasked = {**bare, "seq": 3, "same_scenario": False}
    _, first, _, after = exchange(bare, full(2, "gemini", SAME["fork"]), unasked)
    for seq, reply in ((1, first), (3, after)):
        message = "assemble has neither scenario nor same_scenario"
        assert json.loads(reply) == {"seq": seq, "status": "errored", "message": message}


def test_a_short_assemble_means_the_latest_full_scenario() -> None:
    a, b = SAME["fork"], SAME["siblings"]
    _, *want = exchange(full(1, "gemini", a), full(2, "gemini", b), full(3, "openai", b))
    assert unnumbered(want[0], 1) != unnumbered(want[1], 2)  # A and B tell apart
    _, _, a_short, _, b_short, b_again = exchange(
        full(1, "anthropic", a), short(2, "gemini"), full(3, "anthropic", b), short(4, "gemini"),
        short(5, "openai"),
    )  # fmt: skip
    assert unnumbered(a_short, 2) == unnumbered(want[0], 1)
    assert unnumbered(b_short, 4) == unnumbered(want[1], 2)
    assert unnumbered(b_again, 5) == unnumbered(want[2], 3)


# --- the reference's rendering; openai-responses and a bug planted in it -------------------

RESPONSES = "openai-responses"
LOOKUP = Tool(
    "lookup", parameters=freeze({"type": "custom", "name": "lookup", "format": {"type": "text"}})
)
RICH_HISTORY = (
    Message("system", (Text("Leading system text."),)),
    Message(
        "user",
        (
            Text("Compare these."),
            Image(url="https://example.org/a.png", detail="low"),
            Image(data="iVBOR"),
            Opaque("input_file", freeze({"type": "input_file", "file_id": "f-1"}), RESPONSES),
            Opaque("document", freeze({"type": "document", "title": "x"}), "anthropic"),
        ),
    ),
    Message(
        "model",
        (
            Thinking("weighing", signature="enc-1"),
            Thinking("opaque-data", redacted=True),
            Text("First."),
            FunctionCall("search", freeze({"query": "a", "10": 1, "2": [1.5, None]}), id="c1"),
            Text("Then."),
            FunctionCall("search", freeze({"query": "b"})),
        ),
    ),
    Message(
        "user",
        (
            FunctionResponse("search", "plain text", id="c1"),
            FunctionResponse("search", freeze([{"type": "input_text", "text": "parts"}])),
            Text("And now?"),
        ),
    ),
    Message("model", (Text("Checking."),)),
    Message("system", (Text("A later system note."),)),
    Message("user", (Text("Go on."),)),
    Message("model", (FunctionCall("search", freeze({"query": "c"}), id="c3"),)),
    Message("user", (FunctionResponse("search", freeze({"n": 3}), id="c3", is_error=True),)),
    Message("model", (Text("Done."),)),
)
CHOICES = {
    "auto": ToolChoice("auto"),
    "none-with-names": ToolChoice("none", ("search",)),
    "one-tool": ToolChoice("tool", ("search",)),
    "two-tools": ToolChoice("tool", ("search", "agent")),
    "allowed-auto": ToolChoice("auto", ("agent",)),
}
EXTRA = freeze(
    {
        RESPONSES: {
            "store": False,
            "text": {"verbosity": "low"},
            "reasoning": {"summary": "auto"},
            "tools": {"search": {"strict": True}},
            "include": ["reasoning.encrypted_content"],
        },
        "openai": {"seed": 7, "tools": {"search": {"strict": True}}},
        "anthropic": {"metadata": {"user_id": "u-1"}},
        "gemini": {"labels": {"team": "core"}},
    }
)


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_parents_of_rich_histories_are_the_reference_rendering(
    node: SubprocessSubject, dialect: str, choice: str
) -> None:
    # every part kind, opaque parts of this dialect and of another, system messages, extras
    settings = Settings(
        model="m-1",
        top_p=0.5,
        max_output_tokens=64,
        top_k=5,
        stop=("END",),
        thinking=ThinkingConfig(mode="enabled", budget_tokens=512, effort="high"),
        tool_choice=CHOICES[choice],
        output_schema=OutputSchema(freeze({"type": "object"}), strict=True),
        extra=EXTRA,
    )
    # a custom tool's declaration is kept as sent: an OpenAI form, which Anthropic rejects
    tools = (SEARCH, AGENT, LOOKUP) if dialect.startswith("openai") else (SEARCH, AGENT)
    for system in ((), ("Only one block.",), PRESET.system):
        preset = Preset(system, tools, settings)
        scenario = Scenario(f"rich-{choice}", "fork", preset, RICH_HISTORY, ("look",))
        outcome = node.assemble(scenario, dialect)
        assert outcome.status == "assembled", outcome.message
        assert outcome.parent == ReferenceSubject().assemble(scenario, dialect).parent
        parent, child = parse(dialect, outcome.parent), parse(dialect, outcome.children[0])
        assert compare(parent, child).preserved


def test_openai_responses_bodies_have_the_responses_shape(node: SubprocessSubject) -> None:
    scenario = Scenario("shape", "fork", PRESET, ENDINGS["model-calls"], ("look",))
    parent = orjson.loads(node.assemble(scenario, RESPONSES).parent or b"")
    assert parent["instructions"] == PRESET.system[0]
    developer, user, reasoning, call, output = parent["input"][:5]
    assert developer == {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": PRESET.system[1]}],
    }
    assert [p["type"] for p in user["content"]] == ["input_text", "input_image"]
    assert reasoning == {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "let me search"}],
        "encrypted_content": "sig",
    }
    assert call == {
        "type": "function_call",
        "call_id": "c1",
        "name": "search",
        "arguments": '{"query":"bug","limit":3}',
    }
    assert output == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": '{"hits":["a.py"]}',
    }
    assert list(parent["tools"][0]) == ["type", "name", "description", "parameters"]
    assert parent["tool_choice"] == "auto"
    assert parent["text"] == {
        "format": {"type": "json_schema", "name": "answer", "schema": {"type": "object"}}
    }
    assert parent["reasoning"] == {"effort": "low"}
    assert (parent["temperature"], parent["max_output_tokens"]) == (0.2, 2048)


def check(*args: str, bug: str | None = None) -> dict[str, Any]:
    """Run `prefix-harness check --json` on the Node subject and return the report."""
    env = {k: v for k, v in os.environ.items() if k != "NODE_SUBJECT_BUG"}
    if bug is not None:
        env["NODE_SUBJECT_BUG"] = bug
    command = [sys.executable, "-m", "harness", "check", "--json", "--no-progress"]
    command += ["--subject", f"cmd:node {SUBJECT_JS}", *args]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.stdout, f"no report (exit {done.returncode}):\n{done.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["exit_code"] == done.returncode
    return report


def failures(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (r["dialect"], f["rule"])
        for r in report["reports"]
        for f in r["findings"]
        if f["status"] == "fail"
    }


def test_it_conforms_in_openai_responses() -> None:
    report = check("--dialect", RESPONSES, "--examples", "10")
    assert failures(report) == set()
    assert report["exit_code"] == 0
    assert {r["dialect"] for r in report["reports"]} == {RESPONSES}
    assert not report["subject_failures"]


def test_sorted_tool_keys_in_openai_responses_children_fail_tools_identical() -> None:
    # the fixtures alone show the bug; no generated scenario is needed (nor shrunk)
    report = check("--examples", "0", bug="sorted-tool-keys")
    assert report["exit_code"] == 1
    assert not report["subject_failures"]
    failed = failures(report)
    assert (RESPONSES, "tools-identical") in failed
    assert {dialect for dialect, _ in failed} == {RESPONSES}  # the other dialects are intact


def test_an_unknown_planted_bug_stops_it_at_start() -> None:
    env = {**os.environ, "NODE_SUBJECT_BUG": "no-such-bug"}
    done = subprocess.run(
        ["node", str(SUBJECT_JS)],
        input='{"cmd":"start","version":1}\n',
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert "unknown NODE_SUBJECT_BUG" in done.stderr
