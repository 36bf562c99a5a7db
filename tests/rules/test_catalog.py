import re
from importlib.resources import files

import pytest

from harness.rules import LIFECYCLES, SeenIn, catalog, rule_info
from harness.rules._catalog import parse_catalog

from .bad_subjects import ALL_CASES, CLASSES

DOCUMENTED_IDS = (
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
    assert set(DOCUMENTED_IDS) <= set(ids)
    assert {"well-formed", "subject-error"} <= set(ids)
    assert "parent-faithful" in ids
    assert len(ids) == len(set(ids)) == 19


def test_severities_follow_the_spec() -> None:
    assert rule_info("degraded-fallback").severity == "note"
    assert rule_info("call-args-kept").severity == "warning"
    assert rule_info("byte-prefix").severity == "error"


def test_scope_of_cache_markers_and_spawn_rules() -> None:
    markers = rule_info("cache-markers")
    assert markers.dialects is None
    assert markers.scope_problem("openai", "one-shot") is None
    assert markers.scope_problem("openai-responses", "continuable") is None
    assert markers.scope_problem("gemini", "spawn") == (
        "applies to one-shot, continuable children, not spawn"
    )
    (one,) = parse_catalog(ENTRY.replace('dialects = "all"', 'dialects = ["gemini"]'))
    assert one.scope_problem("openai", "one-shot") == (
        "applies to the gemini dialect only, not openai"
    )
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


def test_the_cost_model_is_stated_in_the_catalog() -> None:
    text = files("harness.rules").joinpath("catalog.toml").read_text(encoding="utf-8")
    assert "docs/cache-model.md" in text
    assert "50,000-token parent" in text


def test_unknown_rule_lists_the_known_ids() -> None:
    with pytest.raises(KeyError, match=r"unknown rule 'nope'; known rules: well-formed, "):
        rule_info("nope")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (('severity = "error"', 'severity = "fatal"'), "severity must be one of"),
        (('lifecycles = ["one-shot"]', 'lifecycles = ["forever"]'), "unknown lifecycles"),
        (('dialects = "all"', "dialects = []"), 'dialects is "all", "with-markers" or a list'),
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


# --- seen in: the public bugs of each rule's regression classes -------------------------------

GITHUB_ISSUE = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/[1-9][0-9]*")

SEEN = (
    ENTRY
    + """
[[rule.seen_in]]
class = "c"
url = "https://github.com/o/r/issues/1"
note = "n"
"""
)


def test_every_seen_in_is_a_github_issue_or_pull_request() -> None:
    entries = [e for info in catalog() for e in info.seen_in]
    assert entries
    for entry in entries:
        assert GITHUB_ISSUE.fullmatch(entry.url), entry.url


def test_every_class_a_rule_was_seen_in_has_a_bad_subject_that_the_rule_catches() -> None:
    for info in catalog():
        for entry in info.seen_in:
            assert entry.regression_class in CLASSES, (info.id, entry.regression_class)
            caught = [
                key
                for key, case in ALL_CASES.items()
                if case.regression_class == entry.regression_class and case.rule == info.id
            ]
            assert caught, (info.id, entry.regression_class)


def test_every_class_seen_in_the_field_is_linked_to_a_public_bug() -> None:
    from .bad_subjects import FIELD_CLASSES

    linked = {e.regression_class for info in catalog() for e in info.seen_in}
    assert set(FIELD_CLASSES) <= linked


def test_the_routing_key_class_is_linked_where_its_bad_subject_is_caught() -> None:
    entries = rule_info("settings-identical").seen_in
    assert (
        SeenIn(
            "https://github.com/openai/codex/issues/24704",
            "a routing key derived by the child instead of inherited",
            "a forked child sends a prompt_cache_key derived from its own thread id",
        )
        in entries
    )
    assert ALL_CASES["cache-key-derived"].regression_class == entries[0].regression_class


def test_seen_in_is_parsed_in_order_and_a_note_is_optional() -> None:
    text = SEEN + '\n[[rule.seen_in]]\nclass = "c"\nurl = "https://github.com/o/r/pull/2"\n'
    (info,) = parse_catalog(text)
    assert info.seen_in == (
        SeenIn("https://github.com/o/r/issues/1", "c", "n"),
        SeenIn("https://github.com/o/r/pull/2", "c", None),
    )
    (plain,) = parse_catalog(ENTRY)
    assert plain.seen_in == ()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            ('url = "https://github.com/o/r/issues/1"', 'url = "github.com/o/r/issues/1"'),
            "rule 'x': seen_in[0].url must be an https address, not 'github.com/o/r/issues/1'",
        ),
        (
            ('url = "https://github.com/o/r/issues/1"', 'url = "https://a b/c"'),
            "seen_in[0].url must be an https address",
        ),
        (
            ('url = "https://github.com/o/r/issues/1"', "url = 7"),
            "seen_in[0].url must be an https address, not 7",
        ),
        (('class = "c"', 'class = ""'), "seen_in[0].class must be a non-empty one-line string"),
        (('class = "c"', 'class = "a\\nb"'), "seen_in[0].class must be a non-empty one-line"),
        (('class = "c"\n', ""), "seen_in[0].class must be a non-empty one-line string"),
        (('note = "n"', 'note = "a\\nb"'), "seen_in[0].note must be one line of at most 100"),
        (('note = "n"', f'note = "{"n" * 101}"'), "seen_in[0].note must be one line"),
        (('note = "n"', 'notes = "n"'), "seen_in[0] has unknown keys ['notes']"),
    ],
)
def test_malformed_seen_in_entries_are_refused(change: tuple[str, str], problem: str) -> None:
    assert change[0] in SEEN
    with pytest.raises(ValueError, match=re.escape(problem)):
        parse_catalog(SEEN.replace(*change))


def test_seen_in_must_be_a_list_of_tables_without_repeats() -> None:
    with pytest.raises(ValueError, match=re.escape("rule 'x': seen_in is a list of tables")):
        parse_catalog(ENTRY + 'seen_in = "https://github.com/o/r/issues/1"\n')
    with pytest.raises(ValueError, match=re.escape("seen_in[0] is a table with a url and a")):
        parse_catalog(ENTRY + 'seen_in = ["https://github.com/o/r/issues/1"]\n')
    repeated = SEEN + SEEN[len(ENTRY) :]
    with pytest.raises(ValueError, match=re.escape("seen_in[1] repeats https://github.com/o/r/")):
        parse_catalog(repeated)


def test_the_boundaries_rule_applies_to_every_dialect() -> None:
    """Every provider caches at boundaries of its own (markers, lookup boundaries, prefix
    units), so cache-markers is judged in every dialect, not only those with markers."""
    assert rule_info("cache-markers").dialect_scope == "all"
    assert rule_info("cache-markers").dialects is None
    assert rule_info("byte-prefix").dialects is None
