"""``prefix-harness diff PARENT FORK``: does the fork keep the parent's prefix?"""

from __future__ import annotations

import argparse
import gc
import sys

from .._bodies import STDIN, BodyError, choose_dialect, decode_pair, parse_body
from ._common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    add_body_options,
    add_strict_bytes,
    fail,
)

__all__ = ["add_parser"]

DESCRIPTION = """\
Compare two captured request bodies: a parent's last request and a fork's first request,
as the provider's prompt cache sees them. Both are rendered into the prefix the provider
caches (the spellings it documents as one prompt made one: whitespace and escapes, key order
of messages and blocks but never inside a tool schema or call arguments, Anthropic's string
content as one text block, ...), and the fork is sent through a simulation of the
provider's cache right after the parent. Exit 0 when the fork loses no cached token, 1 when
it does (a divergence, no boundary of its own where the parent wrote, a changed model or
routing key), 2 on bad usage or input. --strict-bytes compares the bytes as sent instead
(key order everywhere): exit 0 only when the fork's stream starts with the parent's whole
stream. Settings the cache is not keyed on are listed, not judged. docs/cache-model.md
says what each provider caches and where that is documented.
"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "diff",
        help="does a fork's first request read its parent's cached prefix?",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("parent", help="the parent's last request body (JSON file, or - for stdin)")
    parser.add_argument("fork", help="the fork's first request body (JSON file, or - for stdin)")
    add_body_options(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_strict_bytes(parser)
    parser.add_argument(
        "--context",
        type=int,
        default=40,
        metavar="BYTES",
        help="bytes of context shown either side of the divergence (default: 40)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.parent == STDIN and args.fork == STDIN:
        return fail("only one of PARENT and FORK can be read from stdin (-)")
    if args.context < 0:
        return fail("--context must be 0 or more")
    gc.disable()  # a short run that creates no cycles: collections would only cost time
    try:
        return _compare(args)  # its bodies are freed before collections resume: none walks them
    finally:
        gc.enable()


def _compare(args: argparse.Namespace) -> int:
    from ..prefix import StreamError, compare
    from ..reports import DiffSubjects, diff_json, diff_text

    warnings: list[str] = []
    try:
        pair = decode_pair(args.parent, args.fork, max_bytes=args.max_body_size, warnings=warnings)
        decoded = {args.parent: pair.parent, args.fork: pair.fork}  # one body if named twice
        dialect, guessed = choose_dialect(decoded, name=args.dialect)
        parent = parse_body(dialect, decoded[args.parent], source=args.parent)
        fork = parse_body(dialect, decoded[args.fork], source=args.fork)
        del decoded
        comparison = compare(parent, fork, known=pair.known, strict=args.strict_bytes)
    except BodyError as e:
        return fail(str(e), code=EXIT_BAD_INPUT)
    except StreamError as e:
        return fail(f"{_name(args.parent)} or {_name(args.fork)}: {e}", code=EXIT_BAD_INPUT)
    for warning in warnings:
        print(f"prefix-harness: warning: {warning}", file=sys.stderr)
    subjects = DiffSubjects(_name(args.parent), _name(args.fork), guessed)
    if args.json:
        sys.stdout.buffer.write(diff_json(comparison, subjects))
    else:
        sys.stdout.write(diff_text(comparison, subjects, context=args.context))
    return EXIT_OK if comparison.preserved else EXIT_FAILED


def _name(source: str) -> str:
    return "<stdin>" if source == STDIN else source
