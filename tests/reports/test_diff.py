import orjson

from harness.dialects import get_dialect
from harness.prefix import compare
from harness.reports import DIFF_FORMAT_VERSION, DiffSubjects, diff_json, diff_text

SUBJECTS = DiffSubjects("p.json", "f.json")
BODY = {"model": "a", "messages": [{"role": "user", "content": "Path to the file"}]}


def comparison(fork_body: dict):  # type: ignore[no-untyped-def,type-arg]
    d = get_dialect("openai")
    return compare(d.parse(BODY), d.parse(fork_body))


def test_kept_report_states_the_share_and_settings() -> None:
    fork = {**BODY, "messages": [*BODY["messages"], {"role": "assistant", "content": "ok"}]}
    result = comparison(fork)
    text = diff_text(result, SUBJECTS)
    assert "PREFIX KEPT" in text
    assert 0 < result.share < 1
    assert f"{result.parent.length:,} bytes = {result.share:.1%} of the fork's prefix" in text
    assert "settings: identical (1 compared)" in text


def test_broken_report_has_window_carets_and_structure() -> None:
    fork = {"model": "b", "messages": [{"role": "user", "content": "Path of the file"}]}
    lines = diff_text(comparison(fork), SUBJECTS, context=8).splitlines()
    assert lines[1] == "compared: rendered prefix"
    assert lines[5].startswith("PREFIX BROKEN at byte ")
    assert lines[5].endswith(" cached tokens lost")
    parent_line = next(i for i, x in enumerate(lines) if x.startswith("  parent   "))
    caret = lines[parent_line + 1].index("^")
    assert lines[parent_line][caret] == "t"
    assert lines[parent_line + 2][caret] == "o"
    assert '  changed  messages[0].content: "Path to the file" -> "Path of the file"' in lines
    assert "settings: 1 of 1 differ" in lines
    assert '  model  "a" -> "b"' in lines


def test_json_report_is_complete_and_stable() -> None:
    fork = {"messages": [{"role": "user", "content": "Path of the file"}], "temperature": 1}
    report = orjson.loads(diff_json(comparison(fork), DiffSubjects("p.json", "f.json", True)))
    assert report["dialect_guessed"] is True
    assert report["preserved"] is False
    assert report["divergence"]["parent_window"].endswith('to the file"\\n')
    assert report["settings"]["changed"] == [
        {
            "name": "model",
            "parent": "a",
            "fork": None,
            "parent_present": True,
            "fork_present": False,
        },
        {
            "name": "temperature",
            "parent": None,
            "fork": 1,
            "parent_present": False,
            "fork_present": True,
        },
    ]


def test_json_report_starts_with_its_format_version() -> None:
    """Consumers check the version first, as they do in the check reports."""
    fork = {**BODY, "messages": [*BODY["messages"], {"role": "assistant", "content": "ok"}]}
    for body in (fork, {"model": "b", "messages": []}):
        report = orjson.loads(diff_json(comparison(body), SUBJECTS))
        assert next(iter(report)) == "format_version"
        assert report["format_version"] == DIFF_FORMAT_VERSION == 2


def test_json_report_keys_are_those_docs_reports_md_lists_in_its_order() -> None:
    fork = {"messages": [{"role": "user", "content": "Path of the file"}], "temperature": 1}
    report = orjson.loads(diff_json(comparison(fork), SUBJECTS))
    assert list(report) == [
        "format_version",
        "dialect",
        "dialect_guessed",
        "preserved",
        "parent",
        "fork",
        "shared_bytes",
        "share_of_fork",
        "divergence",
        "view",
        "cache",
        "settings",
    ]
    assert list(report["cache"]) == [
        "model",
        "exact",
        "encoding",
        "parent_tokens",
        "fork_tokens",
        "lost_tokens",
        "lost_to_divergence",
        "lost_to_boundaries",
        "lost_to_settings",
        "keyed_changed",
        "miss_reason",
        "structural",
        "usage",
        "judged",
        "equivalences",
    ]
    assert list(report["cache"]["usage"]) == [
        "total",
        "read",
        "written",
        "uncached",
        "fields",
        "minimum",
    ]
    assert list(report["parent"]) == list(report["fork"]) == ["source", "segments", "bytes"]
    assert list(report["divergence"]) == [
        "offset",
        "parent_segment",
        "fork_segment",
        "path",
        "reason",
        "parent_window",
        "fork_window",
        "structural_diff",
    ]
    assert list(report["settings"]) == ["compared", "changed"]


def anthropic(body: dict):  # type: ignore[no-untyped-def,type-arg]
    return get_dialect("anthropic").parse(body)


ASK = {"role": "user", "content": "Tidy up the repository. " * 80}


def test_a_documented_equivalence_keeps_the_prefix_and_is_named() -> None:
    """Anthropic's string content is one text block: the fork that spells it as a block
    keeps the prefix, and the report names the equivalence with its source."""
    parent = {"model": "claude-sonnet-4-5", "messages": [ASK]}
    block = {"role": "user", "content": [{"type": "text", "text": ASK["content"]}]}
    fork = {
        "model": "claude-sonnet-4-5",
        "messages": [block, {"role": "assistant", "content": "ok"}],
    }
    result = compare(anthropic(parent), anthropic(fork))
    assert result.preserved
    assert result.lost_tokens == 0
    text = diff_text(result, SUBJECTS)
    assert "PREFIX KEPT" in text
    assert (
        "equivalences:\n  same to the cache: a string content is shorthand for one text block"
        in text
    )
    strict = compare(anthropic(parent), anthropic(fork), strict=True)
    assert not strict.preserved
    assert "compared: bytes as sent (--strict-bytes)" in diff_text(strict, SUBJECTS)
    assert "equivalences:" not in diff_text(strict, SUBJECTS)


def test_a_changed_model_misses_the_cache_and_says_the_providers_reason() -> None:
    parent = {"model": "claude-sonnet-4-5", "messages": [ASK]}
    fork = {**parent, "model": "claude-opus-4-1"}
    result = compare(anthropic(parent), anthropic(fork))
    assert result.divergence is None
    assert not result.preserved
    assert result.keyed_changed == ("model",)
    text = diff_text(result, SUBJECTS)
    assert "CACHE MISSED: " in text
    assert "the cache is keyed on model" in text
    assert "to its keyed settings (the provider calls it model_changed)" in text
    report = orjson.loads(diff_json(result, SUBJECTS))
    assert report["cache"]["miss_reason"] == "model_changed"
    assert report["cache"]["lost_to_settings"] == report["cache"]["parent_tokens"] > 0


def test_a_difference_past_the_parents_last_entry_costs_nothing() -> None:
    """The parent caches up to its breakpoint on the system prompt; a fork that changes only
    the history after it keeps every cached token: exit 0, the divergence still shown."""
    system = [{"type": "text", "text": "Rules. " * 900, "cache_control": {"type": "ephemeral"}}]
    parent = {"model": "claude-sonnet-4-5", "system": system, "messages": [ASK]}
    fork = {**parent, "messages": [{"role": "user", "content": "Something else."}]}
    result = compare(anthropic(parent), anthropic(fork))
    assert result.divergence is not None
    assert result.preserved
    text = diff_text(result, SUBJECTS)
    assert "PREFIX KEPT to the cache: the fork leaves the parent at byte " in text
    assert "usage    input_tokens=" in text
    assert result.usage_fields["cache_read_input_tokens"] == result.cache.child.read > 0
