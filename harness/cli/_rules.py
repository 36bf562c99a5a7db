"""``prefix-harness rules [ID]``: the rule catalog, or one rule explained."""

from __future__ import annotations

import argparse
import sys
import textwrap

from ..rules import RuleInfo, catalog, rule_info
from ._common import EXIT_BAD_INPUT, EXIT_OK, fail

__all__ = ["add_parser", "run"]

DESCRIPTION = """\
List the rules every subject is checked against (id, severity, title), or explain one rule:
what it checks, where it applies, the typical cause of a failure and the fix. Exit 2 for an
unknown rule id.
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


def explanation(info: RuleInfo) -> str:
    """The whole catalog entry of one rule, its explanation wrapped for a terminal."""
    dialects = "all" if info.dialects is None else ", ".join(info.dialects)
    body = textwrap.fill(info.explanation, width=88, break_on_hyphens=False)
    return (
        f"{info.id} ({info.severity}): {info.title}\n"
        f"dialects:   {dialects}\n"
        f"lifecycles: {', '.join(info.lifecycles)}\n\n"
        f"{body}\n"
    )


def run(args: argparse.Namespace) -> int:
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
