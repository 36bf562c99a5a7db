import re
from importlib.resources import files

import pytest

from harness.rules import BYTES_PER_TOKEN, LIFECYCLES, catalog, rule_info
from harness.rules._catalog import parse_catalog

SPEC_IDS = (
    "system-identical",
    "tools-identical",
    "settings-identical",
    "history-inherited",
    "byte-prefix",
    "alternation",
    "call-pairing",
    "siblings-shared",
    "task-after-prefix",
    "parent-id-guidance",
    "recursion-rejected",
    "spawn-isolated",
    "append-only",
    "degraded-fallback",
    "call-args-kept",
    "cache-markers",
)

ENTRY = """
[[rule]]
id = "x"
title = "t"
severity = "error"
dialects = "all"
lifecycles = ["one-shot"]
explanation = "e"
"""


def test_every_spec_rule_id_is_in_the_catalog() -> None:
    ids = [r.id for r in catalog()]
    assert set(SPEC_IDS) <= set(ids)
    assert {"well-formed", "subject-error"} <= set(ids)
    assert "parent-faithful" in ids
    assert len(ids) == len(set(ids)) == 19


def test_severities_follow_the_spec() -> None:
    assert rule_info("degraded-fallback").severity == "note"
    assert rule_info("call-args-kept").severity == "warning"
    assert rule_info("byte-prefix").severity == "error"


def test_scope_of_cache_markers_and_spawn_rules() -> None:
    markers = rule_info("cache-markers")
    assert markers.dialects == ("anthropic",)
    assert markers.scope_problem("openai", "one-shot") == (
        "applies to the anthropic dialect only, not openai"
    )
    assert markers.scope_problem("anthropic", "one-shot") is None
    spawn = rule_info("spawn-isolated")
    assert spawn.lifecycles == ("spawn",)
    assert spawn.scope_problem("gemini", "continuable") == (
        "applies to spawn children, not continuable"
    )
    assert rule_info("alternation").lifecycles == LIFECYCLES


def test_explanations_are_one_paragraph_with_cause_and_fix() -> None:
    for info in catalog():
        assert "\n" not in info.explanation
        assert "Typical cause" in info.explanation, info.id
        assert "Fix" in info.explanation, info.id


def test_the_token_estimate_is_stated_in_the_catalog() -> None:
    text = files("harness.rules").joinpath("catalog.toml").read_text(encoding="utf-8")
    assert f"~{BYTES_PER_TOKEN} bytes per token" in text


def test_unknown_rule_lists_the_known_ids() -> None:
    with pytest.raises(KeyError, match=r"unknown rule 'nope'; known rules: well-formed, "):
        rule_info("nope")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (('severity = "error"', 'severity = "fatal"'), "severity must be one of"),
        (('lifecycles = ["one-shot"]', 'lifecycles = ["forever"]'), "unknown lifecycles"),
        (('dialects = "all"', "dialects = []"), 'dialects is "all" or a list'),
        (('title = "t"', 'title = ""'), "title must be a non-empty string"),
    ],
)
def test_bad_entries_are_refused(change: tuple[str, str], problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        parse_catalog(ENTRY.replace(*change))


def test_duplicate_ids_and_empty_catalogs_are_refused() -> None:
    with pytest.raises(ValueError, match="repeats rule ids"):
        parse_catalog(ENTRY + ENTRY)
    with pytest.raises(ValueError, match="no \\[\\[rule\\]\\] entries"):
        parse_catalog("")


def test_lifecycles_all_expands_and_dialect_lists_are_kept() -> None:
    entry = ENTRY.replace('lifecycles = ["one-shot"]', 'lifecycles = "all"')
    (info,) = parse_catalog(entry.replace('dialects = "all"', 'dialects = ["gemini"]'))
    assert info.lifecycles == LIFECYCLES
    assert info.dialects == ("gemini",)
