"""The rule catalog (``catalog.toml``, shipped in this package): ids, severities, scope, help.

The catalog is data so that reports, the ``rules`` command and other languages read one source;
every entry is checked on load, so a typo fails at once instead of silently applying a rule
nowhere.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any, Literal, TypeAlias, get_args

from ..dialects import all_dialects
from ..scenarios import Lifecycle

__all__ = ["LIFECYCLES", "RuleInfo", "SeenIn", "Severity", "catalog", "rule_info"]

Severity: TypeAlias = Literal["error", "warning", "note"]
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
LIFECYCLES: tuple[Lifecycle, ...] = get_args(Lifecycle)


_URL = re.compile(r"https://[^\s/]+/\S+")
_SEEN_KEYS = frozenset({"url", "class", "note"})
NOTE_LIMIT = 100
"""The longest note of a ``seen_in`` entry, in characters: one line of the ``rules`` output."""


@dataclass(frozen=True, slots=True)
class SeenIn:
    """A public bug a rule was seen to catch: its address, the regression class it belongs
    to (a class of the harness's suite of known-bad subjects) and an optional one-line note."""

    url: str
    regression_class: str
    note: str | None = None


WITH_MARKERS = "with-markers"
"""The scope of a rule about cache markers: every registered dialect whose facts name them
(``Facts.markers``), so that the catalog repeats no dialect's facts."""


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """One catalog entry; ``dialect_scope`` is ``"all"``, ``"with-markers"`` or the names of
    the dialects the rule applies to (``dialects`` resolves it)."""

    id: str
    title: str
    severity: Severity
    dialect_scope: str | tuple[str, ...]
    lifecycles: tuple[Lifecycle, ...]
    explanation: str
    seen_in: tuple[SeenIn, ...] = ()
    """Public bugs of the rule's regression classes, in catalog order."""

    @property
    def dialects(self) -> tuple[str, ...] | None:
        """The names of the dialects the rule applies to; None for every dialect."""
        if self.dialect_scope == "all":
            return None
        if self.dialect_scope == WITH_MARKERS:
            found = all_dialects().items()
            return tuple(name for name, d in found if d.facts.markers is not None)
        return tuple(self.dialect_scope)

    def scope_problem(self, dialect: str, lifecycle: Lifecycle) -> str | None:
        """Why the rule does not apply to ``dialect`` and ``lifecycle``; None when it does."""
        dialects = self.dialects
        if dialects is not None and dialect not in dialects:
            names = " and ".join(dialects)
            noun = "dialect" if len(dialects) == 1 else "dialects"
            return f"applies to the {names} {noun} only, not {dialect}"
        if lifecycle not in self.lifecycles:
            return f"applies to {', '.join(self.lifecycles)} children, not {lifecycle}"
        return None


def _names(entry: dict[str, Any], key: str, allowed: tuple[str, ...] | None) -> tuple[str, ...]:
    value = entry.get(key)
    if value == "all" and allowed is not None:
        return allowed
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        more = f', "{WITH_MARKERS}"' if key == "dialects" else ""
        raise ValueError(f'rule {entry.get("id")!r}: {key} is "all"{more} or a list of names')
    unknown = [v for v in value if allowed is not None and v not in allowed]
    if unknown:
        raise ValueError(f"rule {entry.get('id')!r}: unknown {key} {unknown}")
    return tuple(value)


def _line(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and "\n" not in value


def _seen(entry: dict[str, Any]) -> tuple[SeenIn, ...]:
    """The rule's ``seen_in`` entries, each checked: a table with an https ``url``, a one-line
    ``class`` and optionally a one-line ``note``, no pair of url and class twice."""
    rule, value = entry.get("id"), entry.get("seen_in", [])
    if not isinstance(value, list):
        raise ValueError(f"rule {rule!r}: seen_in is a list of tables with a url and a class")
    out: list[SeenIn] = []
    for i, item in enumerate(value):
        where = f"rule {rule!r}: seen_in[{i}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where} is a table with a url and a class, not {item!r}")
        unknown = sorted(set(item) - _SEEN_KEYS)
        if unknown:
            raise ValueError(f"{where} has unknown keys {unknown}; known: class, note, url")
        url, klass, note = item.get("url"), item.get("class"), item.get("note")
        if not isinstance(url, str) or not _URL.fullmatch(url):
            raise ValueError(f"{where}.url must be an https address, not {url!r}")
        if not isinstance(klass, str) or not _line(klass):
            raise ValueError(f"{where}.class must be a non-empty one-line string")
        if note is not None and not (_line(note) and len(note) <= NOTE_LIMIT):
            raise ValueError(f"{where}.note must be one line of at most {NOTE_LIMIT} characters")
        seen = SeenIn(url, klass.strip(), None if note is None else note.strip())
        if any((s.url, s.regression_class) == (seen.url, seen.regression_class) for s in out):
            raise ValueError(f"{where} repeats {url} for the class {seen.regression_class!r}")
        out.append(seen)
    return tuple(out)


def _entry(entry: dict[str, Any]) -> RuleInfo:
    for key in ("id", "title", "explanation"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise ValueError(f"catalog entry {entry.get('id')!r}: {key} must be a non-empty string")
    severity = entry.get("severity")
    if severity not in SEVERITIES:
        raise ValueError(f"rule {entry['id']!r}: severity must be one of {SEVERITIES}")
    scope = entry.get("dialects")
    dialects = scope if scope in ("all", WITH_MARKERS) else _names(entry, "dialects", None)
    lifecycles: Any = _names(entry, "lifecycles", LIFECYCLES)
    return RuleInfo(
        id=entry["id"],
        title=entry["title"],
        severity=severity,
        dialect_scope=dialects,
        lifecycles=lifecycles,
        explanation=" ".join(entry["explanation"].split()),
        seen_in=_seen(entry),
    )


def parse_catalog(text: str) -> tuple[RuleInfo, ...]:
    """The entries of a catalog document, in order; ``ValueError`` names a bad entry."""
    entries = tomllib.loads(text).get("rule")
    if not isinstance(entries, list) or not entries:
        raise ValueError("the catalog has no [[rule]] entries")
    rules = tuple(_entry(e) for e in entries)
    ids = [r.id for r in rules]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"the catalog repeats rule ids {duplicates}")
    return rules


@cache
def catalog() -> tuple[RuleInfo, ...]:
    """Every rule of the shipped catalog, in catalog order."""
    source = files(__package__ or "harness.rules").joinpath("catalog.toml")
    return parse_catalog(source.read_text(encoding="utf-8"))


def rule_info(rule_id: str) -> RuleInfo:
    """The catalog entry ``rule_id``; ``KeyError`` listing the known ids otherwise."""
    for info in catalog():
        if info.id == rule_id:
            return info
    known = ", ".join(r.id for r in catalog())
    raise KeyError(f"unknown rule {rule_id!r}; known rules: {known}")
