"""What every dialect states about its provider's cache: the settings it is keyed on."""

from collections.abc import Sequence

import orjson
import pytest

from harness.dialects import Dialect, Segment, all_dialects, answered_one_to_one, get_dialect
from harness.dialects._base import _guess_family
from harness.model import FunctionCall, FunctionResponse, Message, Preset, Request, Text, freeze


@pytest.mark.parametrize(
    ("dialect", "setting", "scope"),
    [
        ("openai", "model", "request"),
        ("openai", "prompt_cache_key", "request"),
        ("openai", "temperature", None),
        ("openai", "reasoning_effort", "request"),
        ("openai", "tool_choice", None),
        ("anthropic", "model", "request"),
        ("anthropic", "tool_choice", "history"),
        ("anthropic", "thinking", "history"),
        ("anthropic", "max_tokens", None),
        ("anthropic", "temperature", None),
        ("gemini", "cachedContent", "request"),
        ("gemini", "generationConfig.temperature", None),
        ("gemini", "generationConfig.thinkingConfig", None),
    ],
)
def test_cache_scope_of_a_setting(dialect: str, setting: str, scope: str | None) -> None:
    assert get_dialect(dialect).cache_scope(setting) == scope


def test_a_dotted_setting_is_keyed_by_its_head() -> None:
    d = get_dialect("gemini")
    assert d.cache_scope("cachedContent.name") == "request"
    assert d.cache_scope("cached") is None


@pytest.mark.parametrize("dialect", all_dialects())
def test_read_segments_counts_the_body_items_each_message_was_read_from(dialect: str) -> None:
    d = get_dialect(dialect)
    history = (
        Message("user", (Text("hi"),)),
        Message(
            "model", (FunctionCall("a", freeze({}), id="1"), FunctionCall("b", freeze({}), id="2"))
        ),
        Message(
            "user",
            (FunctionResponse("a", "x", id="1"), FunctionResponse("b", "y", id="2"), Text("go")),
        ),
    )
    parsed = d.parse(orjson.loads(d.render(Request(Preset(), history))))
    counts = [d.read_segments(m) for m in parsed.request.history]
    history_segments = [f for f in d.families(parsed.segments) if f == "history"]
    assert None not in counts
    assert sum(c for c in counts if c is not None) == len(history_segments)
    answer = orjson.loads(d.render(Request(Preset(), history[2:])))
    assert counts[2] == len(d.parse(answer).segments)  # OpenAI: a tool message per result
    assert counts[2] == (3 if dialect in ("openai", "openai-responses") else 1)
    assert [d.read_segments(m) for m in history] == [None, None, None]  # not read: no count


def test_answered_one_to_one_pairs_ids_and_names_in_any_order() -> None:
    a, b = FunctionCall("a", freeze({}), id="1"), FunctionCall("b", freeze({}), id="2")
    ra, rb = FunctionResponse("a", "x", id="1"), FunctionResponse("b", "y", id="2")
    assert answered_one_to_one((), ())
    assert answered_one_to_one((a, b), (ra, rb))
    assert answered_one_to_one((a, b), (rb, ra))  # by count, not position
    assert not answered_one_to_one((a, b), (ra,))
    assert not answered_one_to_one((a, b), (ra, ra))
    assert not answered_one_to_one((a,), (FunctionResponse("b", "x", id="1"),))
    assert get_dialect("openai").calls_answered((a, b), (rb, ra))


def _families_read_afresh(d: Dialect, segments: Sequence[Segment]) -> tuple[str, ...]:
    """``Dialect.families`` as its docstring says it, written out item by item."""
    out = []
    leading = True
    for segment in segments:
        root = segment.name.split("[", 1)[0].split(".", 1)[0]
        family = d.facts.segments.get(root) or _guess_family(root)
        if family == "history" and leading and isinstance(segment.value, dict):
            if segment.value.get("role") in d.facts.system_roles:
                family = "system"
            else:
                leading = False
        elif family == "history":
            leading = False
        out.append(family)
    return tuple(out)


@pytest.mark.parametrize("dialect", all_dialects())
def test_families_are_by_root_name_with_a_leading_run_of_system_roles(dialect: str) -> None:
    d = get_dialect(dialect)
    history = (Message("system", (Text("s"),)), Message("user", (Text("u"),)))
    system = Preset(system=("a", "b"))
    bodies = [orjson.loads(d.render(Request(p, history))) for p in (Preset(), system)]
    names = ("messages", "contents", "input", "systemInstruction", "tools", "odd", "x.y")
    roles = ("system", "developer", "user", None)
    made = [
        Segment(f"{name}[{k}]", {"role": role} if role else "text")
        for name in names
        for k, role in enumerate(roles)
    ]
    mixed = [made[8], made[20], made[9], made[1], made[0], made[2]]  # other families between
    for segments in [*(d.segments(body) for body in bodies), made, made[::-1], made[4:], mixed]:
        assert d.families(segments) == _families_read_afresh(d, segments)
        assert d.families(segments) == _families_read_afresh(d, segments)


def test_a_dialect_without_a_cache_model_is_judged_by_structure() -> None:
    from harness.dialects import get_dialect

    view = get_dialect("anthropic").cache_view({"messages": [{"role": "user", "content": "x"}]})
    assert not view.plan.caching  # no marker: Anthropic caches nothing
    assert view.model.label == view.cache.reference.label
    assert not view.known_model
