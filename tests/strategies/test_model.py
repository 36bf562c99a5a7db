import itertools

import orjson
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from harness.assemblers import history_problems
from harness.dialects import all_dialects, get_dialect
from harness.model import FunctionCall, FunctionResponse, Message, Preset, Request
from harness.strategies import (
    histories,
    json_objects,
    json_schemas,
    json_values,
    presets,
    requests,
    tools,
    unicode_texts,
)


def check_alternating_and_paired(history: tuple[Message, ...]) -> None:
    assert history[0].role == "user"
    for a, b in itertools.pairwise(history):
        assert a.role != b.role
    for i, message in enumerate(history):
        calls = message.function_calls
        if message.role == "model" and calls and i + 1 < len(history):
            answers = history[i + 1].function_responses
            assert [(r.id, r.name) for r in answers] == [(c.id, c.name) for c in calls]


@given(histories())
def test_histories_alternate_and_pair_every_call(history: tuple[Message, ...]) -> None:
    check_alternating_and_paired(history)
    ids = [p.id for m in history for p in m.parts if isinstance(p, FunctionCall)]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("ending", ["model", "model_calls", "user"])
@given(data=st.data())
def test_histories_end_as_asked(ending: str, data: st.DataObject) -> None:
    history = data.draw(histories(ending=ending))  # type: ignore[arg-type]
    last = history[-1]
    assert last.role == ("user" if ending == "user" else "model")
    assert bool(last.function_calls) == (ending == "model_calls")
    if ending == "user":
        assert not any(isinstance(p, FunctionResponse) for p in last.parts) or len(history) > 1


@given(requests())
def test_requests_call_only_declared_tools(request: Request) -> None:
    names = {t.name for t in request.preset.tools} or {"tool"}
    for message in request.history:
        assert {c.name for c in message.function_calls} <= names


@given(tools(min_size=2, max_size=4))
def test_tools_have_unique_names(declared: tuple) -> None:  # type: ignore[type-arg]
    assert 2 <= len(declared) <= 4
    assert len({t.name for t in declared}) == len(declared)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: tools(min_size=3, max_size=1), "max_size=1 is below min_size=3"),
        (lambda: tools(min_size=-1), "min_size=-1 must be at least 0"),
        (lambda: presets(min_tools=5, max_tools=2), "presets: max_tools=2 is below min_tools=5"),
        (lambda: presets(max_system_blocks=-1), "presets: max_system_blocks=-1 is below the least"),
        (lambda: requests(max_turns=0), "requests: max_turns=0 must be at least 1"),
        (lambda: requests(max_tools=-1), "requests: max_tools=-1 must be at least 0"),
        (lambda: json_values(max_leaves=0), "json_values: max_leaves=0 must be at least 1"),
        (lambda: json_objects(max_size=-1), "json_objects: max_size=-1 is below the least, 0"),
        (lambda: histories(ending="sideways").validate(), "ending='sideways' is not one of"),
        (lambda: histories(min_turns=0).validate(), "histories: min_turns=0 must be at least 1"),
        (lambda: histories(max_turns=0), "histories: max_turns=0 is below min_turns=1"),
    ],
)
def test_bad_arguments_fail_early_and_clearly(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        make()


# --- long histories, unicode-heavy text, large schemas ------------------------------------------

QUICK = settings(max_examples=10, suppress_health_check=[HealthCheck.too_slow])
"""Long draws are large: the ci profile's derandomized examples stay, just fewer."""
FOUND = settings(
    max_examples=1000,  # a search, not a property: it stops at the first example found
    derandomize=True,  # the same draws every run, so a rare shape cannot make it flaky
    database=None,
    phases=[Phase.generate],  # the first example found: shrinking long draws costs minutes
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("ending", ["model", "model_calls", "user"])
@QUICK
@given(data=st.data())
def test_long_histories_are_valid_and_end_as_asked(ending: str, data: st.DataObject) -> None:
    history = data.draw(histories(ending=ending, min_turns=100, max_turns=300))  # type: ignore[arg-type]
    assert len(history) >= 199
    assert not history_problems(history)
    check_alternating_and_paired(history)
    ids = [p.id for m in history for p in m.parts if isinstance(p, FunctionCall)]
    assert len(ids) == len(set(ids))
    last = history[-1]
    assert last.role == ("user" if ending == "user" else "model")
    assert bool(last.function_calls) == (ending == "model_calls")


def test_long_histories_reach_hundreds_of_messages_with_parallel_calls() -> None:
    def rich(history: tuple[Message, ...]) -> bool:
        parallel = any(len(m.function_calls) >= 2 for m in history)
        return len(history) >= 500 and parallel

    found = find(histories(min_turns=100, max_turns=300), rich, settings=FOUND)
    assert len(found) >= 500


def test_unicode_heavy_histories_reach_every_family_of_text() -> None:
    """CJK, an emoji ZWJ sequence, a combining mark, RTL text and a control character."""

    def families(text: str) -> set[str]:
        found = set()
        for c in text:
            o = ord(c)
            found.add(
                "cjk"
                if 0x4E00 <= o <= 0x9FFF
                else "emoji"
                if o >= 0x1F300 and o <= 0x1FAFF
                else "combining"
                if 0x300 <= o <= 0x36F
                else "rtl"
                if 0x590 <= o <= 0x6FF
                else "control"
                if o < 0x20
                else "other"
            )
        return found

    every = {"cjk", "emoji", "combining", "rtl", "control"}
    history = find(
        histories(unicode_heavy=True, min_turns=20, max_turns=40),
        lambda h: every <= families("".join(m.text for m in h)),
        settings=FOUND,
    )
    assert not history_problems(history)


@settings(max_examples=50)
@given(unicode_texts(min_size=2, max_size=30))
def test_unicode_texts_are_valid_json_text_of_the_size_asked(text: str) -> None:
    assert 2 <= len(text) <= 30
    assert orjson.loads(orjson.dumps(text)) == text  # no lone surrogate, valid UTF-8


def _depth_and_width(schema: object) -> tuple[int, int]:
    if isinstance(schema, dict):
        props = schema.get("properties")
        width = len(props) if isinstance(props, dict) else 0
        deeper = [_depth_and_width(v) for v in schema.values()]
        if isinstance(props, dict):
            deeper = [_depth_and_width(v) for v in props.values()]
            deeper += [_depth_and_width(schema.get("items")), _depth_and_width(schema.get("anyOf"))]
        d = max((x for x, _ in deeper), default=0) + (1 if isinstance(props, dict) else 0)
        return d, max([width, *(w for _, w in deeper)])
    if isinstance(schema, tuple | list):
        inner = [_depth_and_width(v) for v in schema]
        return max((d for d, _ in inner), default=0), max((w for _, w in inner), default=0)
    return 0, 0


def test_large_schemas_are_deep_and_wide() -> None:
    schema = find(
        json_schemas(max_depth=6, max_width=24),
        lambda s: _depth_and_width(s) >= (5, 20),
        settings=FOUND,
    )
    assert schema["type"] == "object"
    large = find(
        tools(min_size=1, max_size=2, large_schemas=True),
        lambda ts: any(_depth_and_width(t.parameters)[0] >= 4 for t in ts),
        settings=FOUND,
    )
    assert large


@settings(max_examples=25)
@given(presets(min_tools=1, max_tools=3, large_schemas=None, unicode_heavy=None))
def test_presets_with_large_schemas_render_in_every_dialect(preset: Preset) -> None:
    for dialect in all_dialects():
        d = get_dialect(dialect)
        back = d.parse(orjson.loads(d.render(Request(preset, ())))).request.preset
        assert [t.name for t in back.tools] == [t.name for t in preset.tools]
        for sent, read in zip(preset.tools, back.tools, strict=True):
            assert sent.parameters is None or read.parameters == sent.parameters


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: tools(large_schemas="yes"), "tools: large_schemas='yes' must be True, False"),
        (lambda: presets(unicode_heavy=1), "presets: unicode_heavy=1 must be True, False"),
        (lambda: presets(large_schemas="no"), "presets: large_schemas='no' must be True"),
        (lambda: histories(unicode_heavy="x"), "histories: unicode_heavy='x' must be True"),
        (lambda: histories(min_turns=5, max_turns=4), "max_turns=4 is below min_turns=5"),
        (lambda: histories(tool_names=("",)), "tool_names=\\(''\\,\\) must be non-empty"),
        (lambda: histories(tool_names="search"), "tool_names='search' must be non-empty"),
        (lambda: json_schemas(max_depth=-1), "json_schemas: max_depth=-1 must be at least 0"),
        (lambda: json_schemas(max_width=0), "json_schemas: max_width=0 must be at least 1"),
        (lambda: unicode_texts(min_size=3, max_size=2), "max_size=2 is below min_size=3"),
        (lambda: unicode_texts(max_size=0), "unicode_texts: max_size=0 is below min_size=1"),
    ],
)
def test_new_options_fail_early_and_clearly(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        make()
