import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from harness.check import (
    ExpectationError,
    Expectations,
    KnownFailure,
    expectations_toml,
    load_expectations,
)
from harness.rules import Finding, ScenarioReport, catalog

GOOD = """
[[known-failure]]
scenario = "fork-a"
rule = "tools-identical"
reason = "https://example.org/issues/1"

[[known-failure]]
subject = "acme"
scenario = "*"
rule = "system-identical"
dialect = "openai"
reason = "date in the system prompt"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "expect.toml"
    path.write_text(text)
    return path


def report(scenario: str, dialect: str, subject: str, **statuses: str) -> ScenarioReport:
    findings = tuple(Finding(rule.replace("_", "-"), s, "m") for rule, s in statuses.items())  # type: ignore[arg-type]
    return ScenarioReport(scenario, dialect, subject, findings)


def test_loads_entries_and_matches_them(tmp_path: Path) -> None:
    expect = load_expectations(write(tmp_path, GOOD))
    assert expect.entries[0] == KnownFailure(
        "fork-a", "tools-identical", "https://example.org/issues/1"
    )
    assert expect.expected("any", "fork-a", "gemini", "tools-identical") is expect.entries[0]
    assert expect.expected("any", "fork-b", "gemini", "tools-identical") is None
    assert expect.expected("acme", "whatever", "openai", "system-identical") is expect.entries[1]
    assert expect.expected("acme", "whatever", "gemini", "system-identical") is None
    assert expect.expected("other", "whatever", "openai", "system-identical") is None


def test_an_entry_whose_rule_passes_is_an_unexpected_pass(tmp_path: Path) -> None:
    expect = load_expectations(write(tmp_path, GOOD))
    reports = [
        report("fork-a", "openai", "x", tools_identical="pass"),
        report("fork-a", "gemini", "x", tools_identical="fail"),
        report("fork-a", "anthropic", "x", tools_identical="not-applicable"),
    ]
    assert expect.unexpected_passes(reports) == [(expect.entries[0], "fork-a/openai")]


def test_no_file_means_no_expectations() -> None:
    assert Expectations().expected("s", "a", "openai", "byte-prefix") is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "[[known-failure]]\nscenario = 'a'\nrule = 'byte-prefix'\n",
            "known-failure[0]: 'reason' is required",
        ),
        (
            "[[known-failure]]\nscenario = 'a'\nrule = 'no-such-rule'\nreason = 'r'\n",
            "unknown rule 'no-such-rule'",
        ),
        (
            "[[known-failure]]\nscenario='a'\nrule='byte-prefix'\nreason='r'\nwhy='x'\n",
            "unknown key 'why'",
        ),
        ("[[knownfailure]]\n", "unknown table 'knownfailure'"),
        ("known-failure = 3\n", "known-failure must be an array of tables"),
        ("[[known-failure]\n", "not valid TOML"),
    ],
)
def test_bad_files_name_the_file_and_entry(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ExpectationError) as caught:
        load_expectations(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert problem in str(caught.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ExpectationError, match="no such file"):
        load_expectations(tmp_path / "nope.toml")


def test_a_wildcard_entry_is_stale_only_when_its_rule_fails_nowhere(tmp_path: Path) -> None:
    text = "[[known-failure]]\nscenario = '*'\nrule = 'history-inherited'\nreason = 'r'\n"
    expect = load_expectations(write(tmp_path, text))
    failing_somewhere = [
        report("a", "openai", "x", history_inherited="pass"),
        report("b", "openai", "x", history_inherited="fail"),
    ]
    assert expect.unexpected_passes(failing_somewhere) == []
    passing_everywhere = [
        report("a", "openai", "x", history_inherited="pass"),
        report("b", "gemini", "x", history_inherited="warning"),
    ]
    assert expect.unexpected_passes(passing_everywhere) == [(expect.entries[0], "a/openai")]


def test_entries_that_can_never_match_are_stale(tmp_path: Path) -> None:
    expect = load_expectations(write(tmp_path, GOOD))
    assert expect.never_matching(scenarios={"fork-a"}, dialects={"openai"}, subject="acme") == []
    assert expect.never_matching(scenarios={"fork-b"}, dialects={"gemini"}, subject="acme") == [
        (expect.entries[0], "stale, never matches: no scenario 'fork-a' in this run"),
        (
            expect.entries[1],
            "stale, never matches: dialect 'openai' is not checked (checked: gemini)",
        ),
    ]
    # an entry for another subject is that subject's; with no subject every entry is judged
    other = expect.never_matching(scenarios={"fork-a"}, dialects={"gemini"}, subject="zeta")
    assert other == []
    every = expect.never_matching(scenarios={"fork-a"}, dialects={"gemini"})
    assert [e for e, _ in every] == [expect.entries[1]]
    # the rules a command checks may be its own
    entry = KnownFailure("fork-a", "tools-identical", "r")
    assert Expectations((entry,)).never_matching(
        scenarios={"fork-a"}, dialects={"openai"}, rules={"byte-prefix"}
    ) == [(entry, "stale, never matches: no rule 'tools-identical' exists")]


# --- expectations_toml ------------------------------------------------------------------------

_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from('"\\\n\r\t\x00\x7f'),
    max_size=12,
)
_RULES = [info.id for info in catalog()]


@given(
    st.lists(
        st.tuples(
            st.builds(
                KnownFailure,
                scenario=_TEXT.filter(str.strip),
                rule=st.sampled_from(_RULES),
                reason=_TEXT.filter(str.strip),
                subject=st.none() | _TEXT,
                dialect=st.none() | _TEXT,
            ),
            _TEXT,
        ),
        max_size=4,
    ),
    _TEXT,
)
@example([(KnownFailure('a"\\\n', "byte-prefix", "x\x00y", dialect="\x7f"), "m\r\n#")], "h\nj")
def test_a_written_file_reads_back_as_its_entries(
    entries: list[tuple[KnownFailure, str]], header: str
) -> None:
    """Any scenario, reason, subject and dialect text (quotes, backslashes, controls), any
    comment and header: the file is TOML that reads back as the entries, each once."""
    written = expectations_toml(entries, header=header)
    loaded = load_expectations_text(written)
    assert loaded == tuple(dict.fromkeys(e for e, _ in entries))


def load_expectations_text(text: str) -> tuple[KnownFailure, ...]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "known.toml"
        path.write_text(text, encoding="utf-8")
        return load_expectations(path).entries


def test_a_lone_surrogate_cannot_be_written_and_is_replaced() -> None:
    written = expectations_toml([(KnownFailure("a\ud800", "byte-prefix", "TODO"), "\udcff")])
    assert load_expectations_text(written) == (KnownFailure("a\ufffd", "byte-prefix", "TODO"),)
    assert "# \\udcff\n" in written
