from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.model import FunctionCall, Message, Request, Text, freeze
from harness.rules import evaluate
from harness.rules._rules_prefix import holds_task
from harness.scenarios import Scenario

from .bad_subjects import CASES
from .scenarios import BY_ID
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
        "key order differs: key 0 is 'path' in the parent, 'lines' in the fork"
    )  # the call's arguments: the model reads them as JSON
    parent = context(CASES["key-order"].subject, "fork-model-calls", "gemini").parent
    assert parent is not None
    assert found.cost is not None
    # the parent's units from the one the child changes on are lost
    index = parent.frame_index(found.evidence.against_segment or "")
    assert index is not None
    assert found.cost.lost_bytes == parent.stream.length - parent.frames[index].start
    assert found.cost.tokens == parent.priced.total - parent.priced.tokens[index]


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
    assert "the task text is in inherited message 0 (messages[2].content[0])" in found.message


def test_a_missing_task_fails() -> None:
    def no_task(request: Request, *_: object) -> Request:
        return replace(request, history=(*request.history[:-1], Message("user", (Text("Go."),))))

    found = finding(edited("no-task", child=no_task), "fork-model", "gemini", "task-after-prefix")
    assert found.status == "fail"
    assert found.message.startswith(
        "children[0]: the task text is not found in a message after the end"
    )


@pytest.mark.parametrize("directive", ["1", "01", "12", "a"])
def test_a_short_directive_inside_a_timestamp_is_not_the_task(directive: str) -> None:
    """A one- or two-character directive found by chance inside unrelated text (a date in
    the child's system prompt) is no task-after-prefix failure: system-identical reports the
    date, and the directive itself is where it belongs."""

    def dated(request: Request, *_: object) -> Request:
        system = (*request.preset.system, "Today is 2026-12-01 12:01 (a).")
        return replace(request, preset=replace(request.preset, system=system))

    scenario = replace(BY_ID["fork-model"], directives=(directive,), id=f"short-{directive}")
    subject = edited("dated", child=dated)
    outcome = subject.assemble(scenario, "openai")
    report = evaluate(scenario, "openai", outcome)
    assert report.finding("task-after-prefix").status == "pass"
    assert report.finding("system-identical").status == "fail"


def test_a_short_directive_standing_alone_in_the_head_is_misplaced() -> None:
    def in_system(request: Request, scenario: Scenario, i: int) -> Request:
        system = (*request.preset.system, f"Directive: {scenario.directives[i]}")
        return replace(request, preset=replace(request.preset, system=system))

    scenario = replace(BY_ID["fork-model"], directives=("01",), id="short-in-system")
    outcome = edited("in-system", child=in_system).assemble(scenario, "openai")
    found = evaluate(scenario, "openai", outcome).finding("task-after-prefix")
    assert found.status == "fail"
    assert "the task text is in the system segment messages[2]" in found.message


@pytest.mark.parametrize(
    ("text", "task", "held"),
    [
        ("Directive: 01", "01", True),
        ("01", "01", True),
        ("2026-12-01", "01", False),
        ("call_01", "01", False),
        ("Fix the tokenizer, then report.", "Fix the tokenizer", True),
        ("Task:\nrun it\n", "run it", True),
        ("Directive: 0\r0", "0\r0", True),  # a short task across lines
        ("0\r0", "0\r0", True),
        ("10\r0", "0\r0", False),
        ("ratio 1:1", "1", False),
        ("Directive: 0\x85", "0\x85", True),  # the task's own trailing line break
        ("Directive: 0\xa0", "0\xa0", True),  # and its own trailing no-break space
    ],
)
def test_holds_task_matches_by_structure(text: str, task: str, held: bool) -> None:
    assert holds_task(text, task) is held


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
    # the model's last answer comes after every byte the parent sent: no cache is lost
    assert found.status == "warning"
    assert "the task text is in inherited message 3 (messages[3].content[2])" in found.message
    assert found.message.endswith("(no cached prefix is lost by it)")
    assert found.evidence is not None
    assert found.evidence.window is not None
    window = found.evidence.window
    assert window.text[: window.caret].endswith('"text":"Note: ')


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("directive", ["0\r0", "a\nb", "0\u20280"])
def test_a_short_directive_across_lines_is_found_in_the_reference(
    dialect: str, directive: str
) -> None:
    """Found by generation: a short task spanning lines stands alone across them."""
    scenario = replace(
        BY_ID["fork-model-calls"],
        id="short-multiline",
        directives=(directive,),
        history=(
            *BY_ID["fork-model-calls"].history[:3],
            Message("model", (FunctionCall("agent", freeze({"directive": directive}), "c9"),)),
        ),
    )
    report = evaluate(scenario, dialect, REFERENCE.assemble(scenario, dialect))
    assert report.finding("task-after-prefix").status == "pass"
    assert not report.failed


def test_a_known_text_joined_with_the_childs_own_is_not_the_task() -> None:
    """The scenario's system block names the task; a child that joins that block with a
    date line of its own has changed its system (system-identical), not placed its task."""
    directive = "Write a regression test for the tokenizer."
    base = BY_ID["fork-model"]
    preset = replace(base.preset, system=(f"Team goal: {directive}",))
    scenario = replace(base, id="goal-in-system", preset=preset, directives=(directive,))

    def dated(request: Request, *_: object) -> Request:
        system = ("\n".join((*request.preset.system, "Date: 2026-12-01")),)
        return replace(request, preset=replace(request.preset, system=system))

    outcome = edited("joined", child=dated).assemble(scenario, "anthropic")
    report = evaluate(scenario, "anthropic", outcome)
    assert report.finding("task-after-prefix").status == "pass"
    assert report.finding("system-identical").status == "fail"

    def own_task(request: Request, *_: object) -> Request:
        system = ("\n".join((*request.preset.system, f"Your task: {directive}")),)
        return replace(request, preset=replace(request.preset, system=system))

    outcome = edited("own-task", child=own_task).assemble(scenario, "anthropic")
    found = evaluate(scenario, "anthropic", outcome).finding("task-after-prefix")
    assert found.status == "fail"
    assert found.evidence is not None
    assert found.evidence.window is not None
    assert found.evidence.window.text[: found.evidence.window.caret].endswith("Your task: ")


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.text(alphabet="ab \n:", max_size=6), max_size=5, unique=True),
    st.integers(0, 4),
    st.text(alphabet="ab \n:", max_size=9),
)
def test_a_head_text_known_whole_holds_no_task(known: list[str], pick: int, task: str) -> None:
    """``_misplaced`` skips a head text that is one of the known texts: taking the known
    texts out of it, longest first, leaves "\\n", which holds no task."""
    known = sorted((k for k in known if k), key=len, reverse=True)
    if not known:
        return
    own = text = known[pick % len(known)]
    for theirs in known:
        own = own.replace(theirs, "\n")
    assert own == "\n"
    assert not holds_task(own, task)
    assert not holds_task(own, text)
