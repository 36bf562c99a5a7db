from dataclasses import replace

import orjson
import pytest

from harness.dialects import get_dialect
from harness.model import Message, Request, Text
from harness.rules._body import read_body
from harness.rules._rules_continuable import extends, names_id
from harness.subjects import Outcome

from .bad_subjects import CASES
from .scenarios import PARENT_ID
from .support import DIALECTS, REFERENCE, edited, finding, outcome

QUOTED = orjson.dumps(PARENT_ID).decode()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_guidance_follows_the_visibility_of_send_message(dialect: str) -> None:
    visible = finding(REFERENCE, "continuable", dialect, "parent-id-guidance")
    assert (visible.status, visible.message) == (
        "pass",
        f"children[0]: the task names the parent id {QUOTED} and send_message",
    )
    hidden = finding(REFERENCE, "continuable-filtered", dialect, "parent-id-guidance")
    assert (hidden.status, hidden.message) == (
        "pass",
        "children[0]: no return guidance, as send_message is not visible",
    )
    assert finding(REFERENCE, "fork-model", dialect, "parent-id-guidance").status == (
        "not-applicable"
    )


@pytest.mark.parametrize(
    ("key", "scenario", "message"),
    [
        (
            "parent-id-missing",
            "continuable",
            f"children[0]: send_message is visible but the task lacks {QUOTED}",
        ),
        (
            "guidance-without-tool",
            "continuable-filtered",
            f"children[0]: send_message is not visible, yet the task names {QUOTED} "
            "and send_message",
        ),
        (
            "guidance-in-system",
            "continuable",
            f"children[0]: the parent id {QUOTED} is in the system instruction, not after the seed",
        ),
    ],
)
def test_guidance_failures(key: str, scenario: str, message: str) -> None:
    found = finding(CASES[key].subject, scenario, "openai", "parent-id-guidance")
    assert (found.status, found.message) == ("fail", message)
    assert found.evidence is not None
    assert found.evidence.offset is not None


def test_an_unquoted_parent_id_is_named() -> None:
    def unquoted(request: Request, *_: object) -> Request:
        text = request.history[-1].text.replace(QUOTED, PARENT_ID)
        return replace(request, history=(*request.history[:-1], Message("user", (Text(text),))))

    subject = edited("unquoted", child=unquoted)
    found = finding(subject, "continuable", "gemini", "parent-id-guidance")
    assert found.message.endswith(f"lacks {QUOTED} (the id appears unquoted)")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_follow_ups_extend_the_previous_request(dialect: str) -> None:
    found = finding(REFERENCE, "continuable-follow-ups", dialect, "append-only")
    assert found.status == "pass"
    assert found.message.startswith("follow_ups[0] extends children[0] (")
    assert found.message.endswith("(all 2 bodies)")
    assert len(outcome(REFERENCE, "continuable-follow-ups", dialect).follow_ups) == 2
    assert finding(REFERENCE, "continuable", dialect, "append-only").status == "not-applicable"


def test_a_rewritten_follow_up_fails_append_only() -> None:
    found = finding(
        CASES["follow-up-rewrites"].subject, "continuable-follow-ups", "anthropic", "append-only"
    )
    assert found.status == "fail"
    assert found.message.startswith("follow_ups[0] rewrites children[0] at byte ")
    assert found.evidence is not None
    assert (found.evidence.body, found.evidence.against) == ("follow_ups[0]", "children[0]")
    assert found.cost is not None


def test_a_follow_up_with_other_settings_fails_append_only() -> None:
    def hotter(result: Outcome, scenario: object, dialect: str) -> Outcome:
        d = get_dialect(dialect)
        request = d.parse(orjson.loads(result.follow_ups[1])).request
        settings = replace(request.preset.settings, temperature=0.9)
        moved = d.render(replace(request, preset=replace(request.preset, settings=settings)))
        return replace(result, follow_ups=(result.follow_ups[0], moved))

    subject = edited("hotter", outcome=hotter)
    found = finding(subject, "continuable-follow-ups", "openai", "append-only")
    assert (
        found.message
        == "follow_ups[1] changes the settings temperature of follow_ups[0] (1 of 2 bodies)"
    )


def test_a_shorter_later_request_costs_at_most_its_own_bytes() -> None:
    """A later request shorter than what it rewrites of the one before (an earlier turn's
    tool schema of 70,000 bytes, then dropped) loses at most every byte it holds."""
    dialect = get_dialect("anthropic")
    big = {"type": "object", "properties": {"q": {"type": "string", "description": "a" * 70000}}}
    first = {
        "model": "m",
        "max_tokens": 8,
        "tools": [{"name": "t", "input_schema": big}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    later = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    before = read_body("first", orjson.dumps(first), dialect)
    after = read_body("later", orjson.dumps(later), dialect)
    assert not isinstance(before, str)
    assert not isinstance(after, str)
    found = extends(before, after)
    assert found.status == "fail"
    assert found.cost is not None
    assert found.cost.lost_bytes <= after.stream.length


@pytest.mark.parametrize(
    "spelled",
    [
        '"lead\\u003cA\\u003e \\u0026 co\\u000c"',  # Go's encoding/json
        '"lead<A> & co\\f"',  # the short escape
        '"\\u006cead<A> & co\\u000C"',  # any escape of any character
    ],
)
def test_the_parent_id_is_found_by_its_decoded_value(spelled: str) -> None:
    parent_id = "lead<A> & co\f"
    assert names_id(f"Reply to {spelled} with send_message.", parent_id)


@pytest.mark.parametrize(
    "text",
    [
        "Reply to lead<A> & co with send_message.",  # not a JSON string literal
        'Reply to "lead<A> & co" with send_message.',  # another value (no form feed)
        'Reply to "lead\\u003cA\\u003e & co\\f',  # never closed
        "",
    ],
)
def test_an_id_that_no_string_literal_decodes_to_is_not_named(text: str) -> None:
    assert not names_id(text, "lead<A> & co\f")


def test_a_child_naming_the_id_with_other_escapes_passes() -> None:
    def escaped(request: Request, *_: object) -> Request:
        spelled = "".join(f"\\u{ord(c):04x}" for c in PARENT_ID)
        text = request.history[-1].text.replace(QUOTED, f'"{spelled}"')
        assert text != request.history[-1].text
        return replace(request, history=(*request.history[:-1], Message("user", (Text(text),))))

    found = finding(
        edited("escaped-id", child=escaped), "continuable", "anthropic", "parent-id-guidance"
    )
    assert found.status == "pass", found.message
