"""Presets, tools, settings and requests: unique tool names, declared calls, any subset of
settings, and every bad argument a clear error when the strategy is built."""

import orjson
import pytest
from hypothesis import given, settings

from harness.dialects import all_dialects, get_dialect
from harness.generation._model import _LARGE_SHAPES, settings_of, tool_of
from harness.generation._text import name_of
from harness.model import Preset, Request, Settings, Tool
from harness.scenarios import history_problems
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
from harness.strategies import settings as settings_strategy


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


def test_settings_of_0_sets_nothing_and_each_bit_sets_its_field() -> None:
    assert settings_of(0) == Settings()
    fields = ["model", "temperature", "top_p", "top_k", "max_output_tokens", "stop", "thinking"]
    for bit, name in enumerate([*fields, "tool_choice"]):
        for seed in (1 << 8, 7 << 8, 12345 << 8):
            chosen = settings_of(seed | 1 << bit)
            set_fields = {f for f in [*fields, "tool_choice"] if getattr(chosen, f) is not None}
            assert set_fields == {name}, (bit, seed)


@settings(max_examples=40)
@given(settings_strategy())
def test_drawn_settings_are_valid_and_render(chosen: Settings) -> None:
    if chosen.top_k is not None:
        assert 1 <= chosen.top_k <= 100
    if chosen.max_output_tokens is not None:
        assert 1 <= chosen.max_output_tokens <= 65536
    if chosen.stop is not None:
        assert 1 <= len(chosen.stop) <= 3
    for dialect in all_dialects():
        get_dialect(dialect).render(Request(Preset(settings=chosen), ()))


@given(requests(max_tools=3))
def test_request_histories_are_valid(request: Request) -> None:
    assert not history_problems(request.history)


# --- a tool from one number ------------------------------------------------------------------


def test_a_tool_is_one_number_zero_the_simplest_and_each_digit_its_part() -> None:
    assert tool_of(0, False) == Tool("a", None, None)
    assert tool_of(0, True) == Tool("a", None, None)
    drawn = [tool_of(code, False) for code in (1, 2, 3)]
    shown = [(t.description is not None, t.parameters is not None) for t in drawn]
    assert shown == [(True, False), (False, True), (True, True)]
    assert tool_of(4, False).name == name_of(1)  # the name is the digit above the details
    # a large schema's depth and width are the digit after the details: the widest, deepest
    widest = tool_of(2 + 4 * (_LARGE_SHAPES - 1), True)
    assert widest.name == "a"
    assert widest.parameters is not None
    assert len(widest.parameters["properties"]) == 24
    assert len(orjson.dumps(widest.parameters)) > 1000


@given(tools(min_size=2, max_size=6, large_schemas=None))
def test_drawn_tools_keep_unique_names(drawn: tuple[Tool, ...]) -> None:
    names = [t.name for t in drawn]
    assert len(set(names)) == len(names)
