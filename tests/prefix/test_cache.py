"""A child judged against its parent by the provider's cache, on hand-written bodies: each
loss is put down to one cause (a divergence, a keyed setting, the child's boundaries)."""

from __future__ import annotations

from typing import Any

from harness.dialects import get_dialect
from harness.prefix._cache import judge_pair, priced

MARK = {"type": "ephemeral"}


def turns(count: int, *, mark_last: bool = False, text: str = "turn") -> list[dict[str, Any]]:
    out = []
    for k in range(count):
        role = "user" if k % 2 == 0 else "assistant"
        block: dict[str, Any] = {"type": "text", "text": f"{text} {k} " + "x" * 40}
        if mark_last and k == count - 1:
            block["cache_control"] = MARK
        out.append({"role": role, "content": [block]})
    return out


def anthropic(messages: list[dict[str, Any]], **extra: Any) -> Any:
    body = {"model": "claude-sonnet-4-6", "system": "Be brief.", "messages": messages, **extra}
    return priced(get_dialect("anthropic").cache_view(body))


def test_a_fork_that_marks_its_end_within_the_lookback_reads_the_whole_parent() -> None:
    parent = anthropic(turns(5, mark_last=True))
    child = anthropic(turns(5) + turns(3, mark_last=True, text="child")[0:3])
    judged = judge_pair(parent, child)
    assert judged.common == len(parent.view.units)
    assert judged.child.read == parent.total
    assert (judged.lost_to_divergence, judged.lost_to_boundaries) == (0, 0)


def test_a_fork_whose_breakpoint_is_25_blocks_past_reads_nothing() -> None:
    parent = anthropic(turns(5, mark_last=True))
    child = anthropic(turns(5) + turns(25, mark_last=True, text="child")[0:25])
    judged = judge_pair(parent, child)
    assert judged.common == len(parent.view.units)  # its bytes match
    assert judged.child.read == 0
    assert judged.lost_to_boundaries == parent.total
    assert judged.lost_to_divergence == 0


def test_a_changed_system_prompt_is_a_divergence_not_a_boundary() -> None:
    parent = anthropic(turns(3, mark_last=True))
    child = anthropic(turns(5, mark_last=True), system="Be brief. Today is Monday.")
    judged = judge_pair(parent, child)
    assert judged.child.read == 0
    assert judged.lost_to_divergence == parent.total
    assert judged.lost_to_boundaries == 0


def test_a_changed_model_is_the_settings_loss() -> None:
    parent = anthropic(turns(3, mark_last=True))
    child = anthropic(turns(5, mark_last=True), model="claude-opus-4-7")
    judged = judge_pair(parent, child)
    assert judged.lost_to_settings == parent.total
    assert (judged.lost_to_divergence, judged.lost_to_boundaries) == (0, 0)


def test_without_markers_the_prefix_is_judged_as_if_the_parent_cached_its_end() -> None:
    parent = anthropic(turns(3))
    child = anthropic(turns(3, text="other"))
    judged = judge_pair(parent, child)
    assert judged.structural
    assert judged.at_size.read == 0  # as it stands, Anthropic caches nothing for it
    assert judged.child.read == parent.tokens[judged.common]  # as if it cached every prefix
    assert judged.lost_to_divergence == parent.total - parent.tokens[judged.common]
    assert judged.lost_to_boundaries == 0


def test_a_difference_past_the_parents_only_entry_costs_nothing() -> None:
    messages = turns(5)
    messages[1]["content"][0]["cache_control"] = MARK
    parent = anthropic(messages)
    changed = [dict(m) for m in turns(5)]
    changed[3] = {"role": "assistant", "content": "something else"}
    child = anthropic(
        [
            *changed,
            {"role": "user", "content": [{"type": "text", "text": "go", "cache_control": MARK}]},
        ]
    )
    judged = judge_pair(parent, child)
    assert judged.common < len(parent.view.units)
    assert judged.lost_to_divergence == 0
    assert judged.child.read == parent.tokens[judged.reachable] > 0


def openai(messages: list[dict[str, Any]], **extra: Any) -> Any:
    return priced(
        get_dialect("openai").cache_view({"model": "gpt-5.6-terra", "messages": messages, **extra})
    )


def test_openai_a_child_that_extends_the_parents_last_message_has_no_boundary_there() -> None:
    head = [
        {"role": "developer", "content": "rules " * 50},
        {"role": "user", "content": [{"type": "text", "text": "first " * 50}]},
        {"role": "assistant", "content": "answer " * 50},
    ]
    last = {"role": "user", "content": [{"type": "text", "text": "second " * 50}]}
    parent = openai([*head, last])
    grown = {"role": "user", "content": [*last["content"], {"type": "text", "text": "task"}]}
    judged = judge_pair(parent, openai([*head, grown]))
    assert judged.lost_to_divergence == 0  # every unit of the parent is repeated
    assert judged.lost_to_boundaries > 0  # but no boundary falls where the parent wrote
    assert judged.child.read == parent.tokens[judged.reachable] - judged.lost_to_boundaries
    appended = judge_pair(
        parent,
        openai(
            [
                *head,
                last,
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "task"},
            ]
        ),
    )
    assert appended.child.read == parent.total


def test_openai_routing_key_is_a_settings_loss() -> None:
    parent = openai([{"role": "user", "content": "a " * 100}], prompt_cache_key="p")
    child = openai(
        [
            {"role": "user", "content": "a " * 100},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
        ],
        prompt_cache_key="child",
    )
    judged = judge_pair(parent, child)
    assert judged.lost_to_settings == parent.total


def test_openai_a_child_leaving_the_parent_right_after_an_entry_loses_it_to_the_divergence() -> (
    None
):
    """A system message inserted after the parent's first one moves the end of the initial
    developer block: the child has no boundary where the parent's entry ends because of what
    it sends next, so the loss is the divergence's, not the boundaries'."""
    system = {"role": "system", "content": "rules " * 300}
    ask = {"role": "user", "content": "ask " * 300}
    parent = openai([system, ask])
    child = openai([system, {"role": "system", "content": "Today is 2026-01-01."}, ask])
    judged = judge_pair(parent, child)
    assert judged.reachable == judged.common < judged.deepest
    assert judged.lost_to_boundaries == 0
    assert (
        judged.lost_to_divergence == parent.tokens[judged.deepest] - parent.tokens[judged.read_same]
    )
    assert judged.lost_to_divergence == parent.total
