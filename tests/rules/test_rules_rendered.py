from dataclasses import replace

import pytest

from harness.model import Request, Tool, freeze, thaw
from harness.rules import evaluate

from .bad_subjects import CASES
from .scenarios import BY_ID, PRESET
from .support import DIALECTS, REFERENCE, edited, finding


def test_the_reference_parent_carries_the_scenario() -> None:
    for scenario in ("fork-model-calls", "siblings", "continuable", "spawn"):
        assert finding(REFERENCE, scenario, "openai", "parent-faithful").status == "pass"


def test_a_parent_losing_an_image_fails_though_the_prefix_holds() -> None:
    found = finding(
        CASES["parent-drops-images"].subject, "fork-model-calls", "gemini", "parent-faithful"
    )
    assert found.status == "fail"
    assert "loses content of the scenario" in found.message
    assert found.cost is None  # content, not cache


def _both(edit: object) -> dict[str, object]:
    return {"child": edit, "parent": edit}


def test_a_parent_dropping_a_tool_or_a_system_block_fails() -> None:
    def no_search(request: Request, *_: object) -> Request:
        tools = tuple(t for t in request.preset.tools if t.name != "search")
        return replace(request, preset=replace(request.preset, tools=tools))

    found = finding(
        edited("no-search", **_both(no_search)), "fork-model", "openai", "parent-faithful"
    )
    assert found.status == "fail"
    assert "the tool search is missing" in found.message

    def no_system(request: Request, *_: object) -> Request:
        return replace(request, preset=replace(request.preset, system=()))

    found = finding(
        edited("no-system", **_both(no_system)), "fork-model", "anthropic", "parent-faithful"
    )
    assert found.status == "fail"
    assert "its system instruction lacks the block" in found.message


def test_tools_in_another_order_are_a_rendering_choice() -> None:
    def reversed_tools(request: Request, *_: object) -> Request:
        tools = tuple(reversed(request.preset.tools))
        return replace(request, preset=replace(request.preset, tools=tools))

    subject = edited("reversed", **_both(reversed_tools))
    found = finding(subject, "fork-model", "openai", "parent-faithful")
    assert found.status == "warning"
    assert "tools in another order" in found.message
    assert finding(subject, "fork-model", "openai", "tools-identical").status == "pass"


def _retooled(name: str, change: object) -> object:
    def edit(request: Request, *_: object) -> Request:
        tools = tuple(change(t) for t in request.preset.tools)  # type: ignore[operator]
        return replace(request, preset=replace(request.preset, tools=tools))

    return edited(name, **_both(edit))


def _sorted(value: object) -> object:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    return value


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_schema_spelled_with_sorted_keys_is_a_rendering_choice(dialect: str) -> None:
    subject = _retooled(
        "sorted-schemas", lambda t: replace(t, parameters=freeze(_sorted(thaw(t.parameters))))
    )
    found = finding(subject, "fork-model", dialect, "parent-faithful")  # type: ignore[arg-type]
    assert found.status == "warning", found.message
    assert "tool declarations spelled their own way" in found.message
    assert finding(subject, "fork-model", dialect, "tools-identical").status == "pass"  # type: ignore[arg-type]


@pytest.mark.parametrize("default", [None, {}, {"properties": {}, "type": "object"}])
def test_a_parameterless_tool_in_any_default_spelling_carries_the_scenario(default: object) -> None:
    scenario = replace(
        BY_ID["fork-model"],
        id="fork-parameterless",
        preset=replace(PRESET, tools=(*PRESET.tools, Tool("uptime", "Uptime.", None))),
    )

    def spelled(request: Request, *_: object) -> Request:
        tools = tuple(
            replace(t, parameters=freeze(default)) if t.name == "uptime" else t
            for t in request.preset.tools
        )
        return replace(request, preset=replace(request.preset, tools=tools))

    for dialect in DIALECTS:
        outcome = edited("default-schema", **_both(spelled)).assemble(scenario, dialect)
        found = evaluate(scenario, dialect, outcome).finding("parent-faithful")
        assert found.status in ("pass", "warning"), (dialect, found.message)


def test_a_schema_of_another_value_is_lost_content() -> None:
    def loosened(tool: Tool) -> Tool:
        if tool.name != "read_file":
            return tool
        return replace(tool, parameters=freeze({"required": ["path"], "type": "object"}))

    found = finding(_retooled("loosened", loosened), "fork-model", "gemini", "parent-faithful")  # type: ignore[arg-type]
    assert found.status == "fail"
    assert "the tool read_file is declared with another description or schema" in found.message
