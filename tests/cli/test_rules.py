import argparse

import pytest

from harness.cli import _rules
from harness.rules import SeenIn, catalog, rule_info


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="prefix-harness")
    _rules.add_parser(parser.add_subparsers())
    args = parser.parse_args(["rules", *argv])
    code: int = args.run(args)
    return code


def test_the_catalog_is_listed_with_severities(capsys: pytest.CaptureFixture[str]) -> None:
    assert run() == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(catalog())
    assert [line.split()[0] for line in lines] == [r.id for r in catalog()]
    by_id = {line.split()[0]: line.split()[1] for line in lines}
    assert by_id["degraded-fallback"] == "note"
    assert by_id["call-args-kept"] == "warning"
    assert by_id["byte-prefix"] == "error"


def test_one_rule_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("cache-markers") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("cache-markers (error): the child's cache boundaries read")
    assert lines[1] == "dialects:   all"
    assert lines[2] == "lifecycles: one-shot, continuable"
    assert "Typical cause" in out
    assert max(len(line) for line in lines[4:]) <= 88


def test_an_unknown_rule_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert _rules.run(argparse.Namespace(rule="byte-prefx")) == 2
    err = capsys.readouterr().err
    assert "unknown rule 'byte-prefx'; known rules: well-formed, subject-error," in err


def test_listing_aligns_ids() -> None:
    text = _rules.listing(catalog())
    widths = {line.index(" error") for line in text.splitlines() if " error " in line}
    assert len(widths) == 1


def test_a_rule_lists_the_public_bugs_it_was_seen_in_by_class(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run("settings-identical") == 0
    out = capsys.readouterr().out
    section = out[out.index("\nseen in:\n") + 1 :].splitlines()
    assert section[:4] == [
        "seen in:",
        "  a routing key derived by the child instead of inherited:",
        "    https://github.com/openai/codex/issues/24704",
        "      a forked child sends a prompt_cache_key derived from its own thread id",
    ]
    info = rule_info("settings-identical")
    for entry in info.seen_in:
        assert f"    {entry.url}" in section
    assert max(len(line) for line in out.splitlines()[4:]) <= 88


def test_the_seen_in_section_groups_links_under_their_class_and_wraps_notes() -> None:
    entries = (
        SeenIn("https://github.com/o/r/issues/1", "first class", "a note " * 20),
        SeenIn("https://github.com/o/r/pull/2", "second class"),
        SeenIn("https://github.com/o/r/issues/3", "first class"),
    )
    lines = _rules.seen_in(entries).splitlines()
    assert lines[0] == "seen in:"
    assert lines[1] == "  first class:"
    assert lines[2] == "    https://github.com/o/r/issues/1"
    assert all(
        line.startswith("      a note") or line.startswith("      note") for line in lines[3:5]
    )
    assert " ".join(line.strip() for line in lines[3:5]) == ("a note " * 20).strip()
    assert lines[5:] == [
        "    https://github.com/o/r/issues/3",
        "  second class:",
        "    https://github.com/o/r/pull/2",
    ]
    assert max(len(line) for line in lines) <= 88
    assert _rules.seen_in(()) == ""


def test_a_rule_without_public_bugs_has_no_seen_in_section(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run("well-formed") == 0
    assert "seen in:" not in capsys.readouterr().out


def test_a_rule_about_markers_shows_each_dialects_cache_facts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run("cache-markers") == 0
    out = capsys.readouterr().out
    facts = out[out.index("\ncache facts:\n") + 1 : out.index("\nseen in:")].splitlines()
    assert facts[0] == "cache facts:"
    text = " ".join(line.strip() for line in facts)
    assert (
        "anthropic: markers: at most 4 a request, a read checks 20 positions back,"
        " ttl 5m unless named"
    ) in text
    assert "  gemini: no markers" in facts
    assert "Claude Sonnet 5: at least 1,024 tokens; $2 uncached, $0.2 cached" in text
    assert "an unknown model: as GPT-5.6 Terra" in text
    assert run("byte-prefix") == 0
    assert "cache facts" not in capsys.readouterr().out
