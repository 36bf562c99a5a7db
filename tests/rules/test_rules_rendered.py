from dataclasses import replace

from harness.model import Request

from .bad_subjects import CASES
from .support import REFERENCE, edited, finding


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
