from dataclasses import replace

import pytest

from harness.model import Message, Request, Text
from harness.scenarios import Scenario

from .bad_subjects import CASES
from .support import DIALECTS, REFERENCE, context, edited, finding


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "scenario", ["fork-model-calls", "fork-model", "fork-user", "siblings", "continuable"]
)
def test_the_reference_keeps_the_prefix_and_puts_the_task_after_it(
    dialect: str, scenario: str
) -> None:
    prefix = finding(REFERENCE, scenario, dialect, "byte-prefix")
    assert prefix.status == "pass"
    assert "starts with the parent's whole prefix" in prefix.message
    assert finding(REFERENCE, scenario, dialect, "task-after-prefix").status == "pass"


def test_byte_prefix_failure_evidence_is_the_locators() -> None:
    found = finding(CASES["key-order"].subject, "fork-model-calls", "gemini", "byte-prefix")
    assert found.status == "fail"
    assert found.message.startswith("children[0] leaves the parent's prefix at byte ")
    assert found.evidence is not None
    assert found.evidence.against == "parent"
    assert found.evidence.reason == (
        "key order differs: key 0 is 'role' in the parent, 'parts' in the fork"
    )
    parent = context(CASES["key-order"].subject, "fork-model-calls", "gemini").parent
    assert parent is not None
    assert found.cost is not None
    assert found.cost.lost_bytes == parent.stream.length - (found.evidence.offset or 0)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_accepted_divergence_makes_byte_prefix_a_warning(dialect: str) -> None:
    found = finding(REFERENCE, "continuable-structured", dialect, "byte-prefix")
    assert found.status == "warning"
    assert "accepted divergence: a structured-output section and" in found.message
    assert found.cost is not None


def test_degraded_forks_expect_no_prefix() -> None:
    found = finding(REFERENCE, "degraded", "openai", "byte-prefix")
    assert found.status == "not-applicable"
    assert found.message == (
        "a degraded fork (no cache-safe parameters) is expected to share no prefix"
    )
    assert finding(REFERENCE, "degraded", "openai", "task-after-prefix").status == "pass"


@pytest.mark.parametrize("scenario", ["fork-model", "continuable"])
def test_the_task_in_the_system_prompt_fails(scenario: str) -> None:
    found = finding(CASES["task-in-system"].subject, scenario, "anthropic", "task-after-prefix")
    assert found.status == "fail"
    assert "the task text is in the system segment system[2], before the end of the inherited" in (
        found.message
    )


def test_the_task_before_the_inherited_history_fails() -> None:
    def task_first(request: Request, *_: object) -> Request:
        first = request.history[0]
        moved = Message("user", (Text(request.history[-1].text), *first.parts))
        last = Message("user", (Text("Begin."),))
        return replace(request, history=(moved, *request.history[1:-1], last))

    found = finding(
        edited("task-first", child=task_first), "fork-model", "openai", "task-after-prefix"
    )
    assert found.status == "fail"
    assert "the task text is in the history segment messages[2]" in found.message


def test_a_missing_task_fails() -> None:
    def no_task(request: Request, *_: object) -> Request:
        return replace(request, history=(*request.history[:-1], Message("user", (Text("Go."),))))

    found = finding(edited("no-task", child=no_task), "fork-model", "gemini", "task-after-prefix")
    assert found.message.startswith("children[0]: the task text is not found after the end")


def test_siblings_share_everything_up_to_their_directive() -> None:
    found = finding(REFERENCE, "siblings", "anthropic", "siblings-shared")
    assert found.status == "pass"
    assert found.message.startswith("children[1] equals children[0] up to its directive (byte ")
    assert finding(REFERENCE, "fork-model", "anthropic", "siblings-shared").status == (
        "not-applicable"
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_differing_placeholders_break_sibling_sharing(dialect: str) -> None:
    found = finding(CASES["sibling-placeholders"].subject, "siblings", dialect, "siblings-shared")
    assert found.status == "fail"
    assert found.evidence is not None
    assert (found.evidence.body, found.evidence.against) == ("children[1]", "children[0]")
    assert found.cost is not None
    assert found.cost.lost_bytes > 0


def test_a_task_repeated_in_an_inherited_message_points_at_the_extra_copy() -> None:
    def echoed(request: Request, scenario: Scenario, i: int) -> Request:
        forking = request.history[3]
        echo = Message("model", (*forking.parts, Text(f"Note: {scenario.directives[i]}")))
        return replace(request, history=(*request.history[:3], echo, *request.history[4:]))

    subject = edited("echoed", child=echoed)
    found = finding(subject, "fork-model-calls", "anthropic", "task-after-prefix")
    assert found.status == "fail"
    assert "the task text is in the history segment messages[3]" in found.message
    assert found.evidence is not None
    assert found.evidence.window is not None
    window = found.evidence.window
    assert window.text[: window.caret].endswith('"text":"Note: ')
