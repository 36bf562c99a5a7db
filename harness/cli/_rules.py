"""``prefix-harness rules [ID]``: the rule catalog, or one rule explained."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

from ._common import EXIT_BAD_INPUT, EXIT_OK, fail

if TYPE_CHECKING:
    from ..rules import RuleInfo, SeenIn

__all__ = ["add_parser", "run"]

DESCRIPTION = """\
List the rules every subject is checked against (id, severity, title), or explain one rule:
what it checks, where it applies, the typical cause of a failure and the fix, and the public
bugs it was seen in, by regression class. Exit 2 for an unknown rule id.
"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "rules",
        help="list the rules, or explain one",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("rule", nargs="?", metavar="ID", help="the rule to explain")
    parser.set_defaults(run=run)


def listing(rules: tuple[RuleInfo, ...]) -> str:
    """One line per rule: id, severity, title, in catalog order."""
    width = max(len(r.id) for r in rules)
    return "".join(f"{r.id:<{width}}  {r.severity:<7}  {r.title}\n" for r in rules)


WIDTH = 88


def _wrapped(text: str, indent: str) -> str:
    return textwrap.fill(
        text, width=WIDTH, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
    )


def seen_in(entries: tuple[SeenIn, ...]) -> str:
    """The "seen in:" section: each regression class (in catalog order), then its links, each
    with its note; empty when the rule has none."""
    if not entries:
        return ""
    classes = dict.fromkeys(e.regression_class for e in entries)
    lines = ["seen in:"]
    for name in classes:
        lines.append(_wrapped(f"{name}:", "  "))
        for entry in (e for e in entries if e.regression_class == name):
            lines.append(f"    {entry.url}")
            if entry.note:
                lines.append(_wrapped(entry.note, "      "))
    return "\n".join(lines) + "\n"


def explanation(info: RuleInfo) -> str:
    """The whole catalog entry of one rule, its explanation wrapped for a terminal, the
    cache facts of every dialect when it is about the cache's boundaries (cache-markers),
    then the public bugs it was seen in."""
    from ..dialects import all_dialects

    dialects = "all" if info.dialects is None else ", ".join(info.dialects)
    body = textwrap.fill(info.explanation, width=WIDTH, break_on_hyphens=False)
    names = info.dialects or tuple(all_dialects())
    facts = cache_facts(names) if info.id == "cache-markers" else ""
    seen = seen_in(info.seen_in)
    return (
        f"{info.id} ({info.severity}): {info.title}\n"
        f"dialects:   {dialects}\n"
        f"lifecycles: {', '.join(info.lifecycles)}\n\n"
        f"{body}\n" + (f"\n{facts}" if facts else "") + (f"\n{seen}" if seen else "")
    )


def cache_facts(names: tuple[str, ...]) -> str:
    """Each dialect's cache facts: how it reads markers (``Facts.markers``), and per model
    the minimum cacheable prefix and the prices a cost is stated at, each with the date the
    provider's page was read (docs/cache-model.md)."""
    from ..dialects import get_dialect

    lines = ["cache facts:"]
    for name in names:
        facts = get_dialect(name).facts
        markers = facts.markers
        if markers is not None:
            lookback = (
                "no lookback limit"
                if markers.lookback is None
                else f"a read checks {markers.lookback} positions back"
            )
            lines.append(
                _wrapped(
                    f"{name}: markers: at most {markers.limit} a request, {lookback},"
                    f" ttl {markers.default_ttl} unless named",
                    "  ",
                )
            )
        else:
            lines.append(f"  {name}: no markers")
        cache = facts.cache
        if cache is not None:
            for model in cache.models:
                lines.append(
                    _wrapped(
                        f"{model.label}: at least {model.minimum_tokens:,} tokens; "
                        f"${model.prices.uncached:g} uncached, ${model.prices.cached:g} cached "
                        f"per MTok (read {model.source.as_of})",
                        "    ",
                    )
                )
            lines.append(f"    an unknown model: as {cache.reference.label}")
        if facts.cache_guide:
            lines.append(f"    {facts.cache_guide}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ..rules import catalog, rule_info

    if args.rule is None:
        sys.stdout.write(listing(catalog()))
        return EXIT_OK
    try:
        info = rule_info(args.rule)
    except KeyError:
        known = ", ".join(r.id for r in catalog())
        return fail(f"unknown rule {args.rule!r}; known rules: {known}", code=EXIT_BAD_INPUT)
    sys.stdout.write(explanation(info))
    return EXIT_OK
