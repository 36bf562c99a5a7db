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
    assert lines[4].startswith("PREFIX BROKEN at byte ")
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
    assert report["divergence"]["parent_window"].endswith('to the file"}\\n')
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
        assert report["format_version"] == DIFF_FORMAT_VERSION == 1


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
        "settings",
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
