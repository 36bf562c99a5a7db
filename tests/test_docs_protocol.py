"""The section "The scenario" of docs/protocol.md is true: every example is a valid scenario
and a valid assemble message, the reference answers it with the reply its info string names,
every rule holds on that reply, and every field of the scenario schema is documented."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.dialects import all_dialects
from harness.protocol import assemble_reply, validate_message
from harness.rules import evaluate
from harness.scenarios import Scenario, scenario_from_json
from harness.subjects import ReferenceSubject

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "protocol.md"
SCHEMA = ROOT / "harness" / "scenarios" / "scenario.schema.json"
_FENCE = re.compile(r"^```json scenario([^`\n]*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def section() -> str:
    """The text of the section "The scenario", up to the next section."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"^## The scenario\n(.*?)(?=^## )", text, re.DOTALL | re.MULTILINE)
    assert match, 'docs/protocol.md has no section "## The scenario"'
    return match.group(1)


def examples(text: str | None = None) -> list[tuple[dict[str, str], dict[str, Any]]]:
    """(info-string attributes, scenario) of every json scenario block of the section."""
    out = []
    for match in _FENCE.finditer(section() if text is None else text):
        attrs = dict(w.split("=", 1) for w in match.group(1).split())
        out.append((attrs, orjson.loads(match.group(2))))
    return out


def reply_problems(attrs: dict[str, str], scenario: Scenario, dialect: str) -> list[str]:
    """How the reference's reply in ``dialect`` differs from what the info string names."""
    outcome = ReferenceSubject().assemble(scenario, dialect)
    found = []
    expected = {
        "status": outcome.status,
        "children": str(len(outcome.children)),
        "follow_ups": str(len(outcome.follow_ups)),
        "parent": "yes" if outcome.parent is not None else "no",
        "parent_next": "yes" if outcome.parent_next is not None else "no",
    }
    defaults = {"follow_ups": "0", "parent_next": "no"}
    for key, value in expected.items():
        documented = attrs.get(key, defaults.get(key))
        if documented is not None and documented != value:
            found.append(f"{key}: documented {documented}, the reference gives {value}")
    return found


def test_there_is_an_example_of_every_lifecycle() -> None:
    found = examples()
    actions = {s["action"] for _, s in found}
    assert actions == {"fork", "siblings", "continuable", "spawn"}
    assert any(s.get("snapshot") is False and s.get("default_tools") for _, s in found)
    assert any(s.get("known_fork_child") is True for _, s in found)
    assert any(s.get("continuation", {}).get("follow_ups") for _, s in found)
    assert any("answer" in s for _, s in found)
    assert len({s["id"] for _, s in found}) == len(found)


@pytest.mark.parametrize(("attrs", "data"), examples(), ids=lambda v: v.get("id", ""))
def test_every_example_is_a_valid_scenario_and_assemble_message(
    attrs: dict[str, str], data: dict[str, Any]
) -> None:
    scenario_from_json(data, source=f"docs/protocol.md {data['id']}")
    message = {"cmd": "assemble", "seq": 1, "dialect": "openai", "scenario": data}
    assert validate_message("assemble", message) == []


@pytest.mark.parametrize("dialect", sorted(all_dialects()))
@pytest.mark.parametrize(("attrs", "data"), examples(), ids=lambda v: v.get("id", ""))
def test_the_reference_replies_as_documented_and_every_rule_holds(
    attrs: dict[str, str], data: dict[str, Any], dialect: str
) -> None:
    scenario = scenario_from_json(data)
    assert reply_problems(attrs, scenario, dialect) == []
    outcome = ReferenceSubject().assemble(scenario, dialect)
    reply = assemble_reply(
        1,
        outcome.status,
        parent=outcome.parent,
        children=outcome.children,
        follow_ups=outcome.follow_ups,
        parent_next=outcome.parent_next,
        message=outcome.message,
    )
    assert validate_message("assemble-reply", reply) == []
    report = evaluate(scenario, dialect, outcome, subject="reference")
    assert not report.failed, [f for f in report.findings if f.status == "fail"]


def _property_names(schema: Any) -> Iterator[str]:
    """Every property name the schema declares, at any depth."""
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            yield from properties
        for value in schema.values():
            yield from _property_names(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _property_names(item)


def test_every_field_of_the_scenario_schema_is_documented() -> None:
    text = section()
    names = set(_property_names(orjson.loads(SCHEMA.read_bytes())))
    missing = sorted(n for n in names if f"`{n}`" not in text)
    assert missing == []


def test_a_wrong_documented_reply_is_caught() -> None:
    attrs, data = next((a, s) for a, s in examples() if s["action"] == "siblings")
    scenario = scenario_from_json(data)
    assert reply_problems({**attrs, "children": "1"}, scenario, "openai") != []
    assert reply_problems({**attrs, "status": "rejected"}, scenario, "openai") != []


def test_an_invalid_example_is_caught() -> None:
    doc = '## The scenario\n```json scenario status=assembled\n{"id": "x", "action": "fork"}\n```\n'
    ((_, data),) = examples(doc)
    message = {"cmd": "assemble", "seq": 1, "dialect": "openai", "scenario": data}
    assert validate_message("assemble", message) != []
