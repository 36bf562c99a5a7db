"""Expectations files: known failures of a subject, so CI can gate on regressions only.

A TOML file lists known failures by scenario id and rule, each with a reason (an issue URL
is best). A listed failure still shows in the report, as expected; an entry whose rule now
passes is reported as an unexpected pass, and one that can never match in the run (a
scenario id the run does not have, a dialect it does not check, a rule id that does not
exist) as stale, so the file cannot go stale quietly. An entry for another subject is
neither: a file may serve several subjects.

    [[known-failure]]
    subject = "acme-agent"          # optional: only for the subject of this name
    scenario = "oneshot-model-calls" # a scenario id, or "*" for every scenario
    rule = "tools-identical"
    dialect = "openai"              # optional: only in this dialect
    reason = "tools are sorted by name: https://example.org/acme/agent/issues/12"
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rules import ScenarioReport, catalog

__all__ = [
    "ExpectationError",
    "Expectations",
    "KnownFailure",
    "expectations_toml",
    "load_expectations",
]

_KEYS = {"subject", "scenario", "rule", "dialect", "reason"}
_REQUIRED = ("scenario", "rule", "reason")


class ExpectationError(ValueError):
    """An expectations file that cannot be used; ``str()`` names the file and the entry."""


@dataclass(frozen=True, slots=True)
class KnownFailure:
    scenario: str
    rule: str
    reason: str
    subject: str | None = None
    dialect: str | None = None

    def covers(self, subject: str, scenario: str, dialect: str, rule: str) -> bool:
        return (
            self.rule == rule
            and self.scenario in ("*", scenario)
            and self.subject in (None, subject)
            and self.dialect in (None, dialect)
        )


@dataclass(frozen=True, slots=True)
class Expectations:
    """The known failures of one file (or none)."""

    entries: tuple[KnownFailure, ...] = ()
    source: str | None = None

    def expected(self, subject: str, scenario: str, dialect: str, rule: str) -> KnownFailure | None:
        """The entry that expects ``rule`` to fail there, if any."""
        return next((e for e in self.entries if e.covers(subject, scenario, dialect, rule)), None)

    def unexpected_passes(
        self, reports: Iterable[ScenarioReport]
    ) -> list[tuple[KnownFailure, str]]:
        """Entries that were judged and did not fail, with where (``scenario/dialect``).

        An entry for one scenario is stale wherever its rule passes; an entry for every
        scenario (``"*"``) only when its rule fails nowhere. A rule that was not applicable,
        or a scenario that did not run, is not a pass.
        """
        passes: list[tuple[KnownFailure, str]] = []
        failed: set[KnownFailure] = set()
        for report in reports:
            for finding in report.findings:
                if finding.status == "not-applicable":
                    continue
                entry = self.expected(
                    report.subject, report.scenario_id, report.dialect, finding.rule
                )
                if entry is None:
                    continue
                if finding.status == "fail":
                    failed.add(entry)
                else:
                    passes.append((entry, f"{report.scenario_id}/{report.dialect}"))
        stale: list[tuple[KnownFailure, str]] = []
        for entry, where in passes:
            if entry.scenario != "*" or (
                entry not in failed and all(e is not entry for e, _ in stale)
            ):
                stale.append((entry, where))
        return stale

    def never_matching(
        self,
        *,
        scenarios: Collection[str],
        dialects: Collection[str],
        subject: str | None = None,
        rules: Collection[str] | None = None,
    ) -> list[tuple[KnownFailure, str]]:
        """Entries that can never match in a run of ``scenarios`` (ids) in ``dialects``,
        each with why, in file order: a scenario id the run does not have (``"*"`` matches
        any), a dialect it does not check, a rule id not in ``rules`` (default: the
        catalog's). Entries for a subject other than ``subject`` are left out (with None,
        every entry is judged). Every command that takes ``--expect`` reports these as
        stale and exits 1.
        """
        known_rules = {info.id for info in catalog()} if rules is None else set(rules)
        stale: list[tuple[KnownFailure, str]] = []
        for entry in self.entries:
            if subject is not None and entry.subject not in (None, subject):
                continue
            if entry.rule not in known_rules:
                why = f"no rule {entry.rule!r} exists"
            elif entry.scenario != "*" and entry.scenario not in scenarios:
                why = f"no scenario {entry.scenario!r} in this run"
            elif entry.dialect is not None and entry.dialect not in dialects:
                checked = ", ".join(sorted(dialects)) or "none"
                why = f"dialect {entry.dialect!r} is not checked (checked: {checked})"
            else:
                continue
            stale.append((entry, f"stale, never matches: {why}"))
        return stale


def load_expectations(path: str | Path) -> Expectations:
    """Read and check an expectations file; ``ExpectationError`` says what is wrong where."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExpectationError(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ExpectationError(f"{source}: cannot be read ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ExpectationError(f"{source}: not valid TOML: {e}") from None
    unknown = set(data) - {"known-failure"}
    if unknown:
        raise ExpectationError(
            f"{source}: unknown table {sorted(unknown)[0]!r}; use [[known-failure]]"
        )
    entries = data.get("known-failure", [])
    if not isinstance(entries, list):
        raise ExpectationError(
            f"{source}: known-failure must be an array of tables ([[known-failure]])"
        )
    rules = {info.id for info in catalog()}
    return Expectations(
        tuple(_entry(e, f"{source}: known-failure[{i}]", rules) for i, e in enumerate(entries)),
        source,
    )


def _entry(entry: Mapping[str, Any], where: str, rules: set[str]) -> KnownFailure:
    if not isinstance(entry, dict):
        raise ExpectationError(f"{where}: must be a table")
    unknown = set(entry) - _KEYS
    if unknown:
        raise ExpectationError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    for key in _REQUIRED:
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise ExpectationError(f"{where}: {key!r} is required (a non-empty string)")
    for key in ("subject", "dialect"):
        if key in entry and not isinstance(entry[key], str):
            raise ExpectationError(f"{where}: {key!r} must be a string")
    if entry["rule"] not in rules:
        raise ExpectationError(
            f"{where}: unknown rule {entry['rule']!r}; see `prefix-harness rules`"
        )
    return KnownFailure(
        scenario=entry["scenario"],
        rule=entry["rule"],
        reason=entry["reason"],
        subject=entry.get("subject"),
        dialect=entry.get("dialect"),
    )


_TOML_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_TOML_UNSAFE = re.compile('["\\\\\x00-\x1f\x7f\ud800-\udfff]')


def _toml_escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _TOML_ESCAPES:
        return _TOML_ESCAPES[char]
    if "\ud800" <= char <= "\udfff":  # no TOML string holds a lone surrogate: U+FFFD instead
        return "\\ufffd"
    return f"\\u{ord(char):04x}"


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (quotes, backslashes and controls escaped)."""
    return '"' + _TOML_UNSAFE.sub(_toml_escape, text) + '"'


def _toml_comment(text: str) -> str:
    """``text`` fit for a TOML comment: one line, no control character."""
    return _TOML_UNSAFE.sub(
        lambda m: m.group() if m.group() in '"\\' else f"\\u{ord(m.group()):04x}", text
    )


def expectations_toml(entries: Sequence[tuple[KnownFailure, str]], *, header: str = "") -> str:
    """An expectations file listing ``entries``, each under a comment (its failure's message),
    in the order given and each once; ``load_expectations`` reads it back as those entries.
    ``header`` (one comment line a line) opens the file."""
    lines = [f"# {_toml_comment(line)}".rstrip() for line in header.splitlines()]
    seen: set[KnownFailure] = set()
    for entry, comment in entries:
        if entry in seen:
            continue
        seen.add(entry)
        lines += ["", f"# {_toml_comment(comment)}".rstrip(), "[[known-failure]]"]
        for key in ("subject", "scenario", "rule", "dialect", "reason"):
            value = getattr(entry, key)
            if value is not None:
                lines.append(f"{key} = {_toml_string(value)}")
    return "\n".join(lines).lstrip("\n") + "\n"
