"""The HTML report of ``check``, ``capture`` and ``check-log``: one self-contained page for
people (docs/html.md).

A header (command, subject, dialects, seed, the verdict and what its exit code means,
counts), the rules × dialects matrix, then each failure with both sides of the divergence
and a bar of the prefix its child kept and lost; for a capture or a log, a timeline of the
requests of each conversation showing how much of each the cache could serve.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..scenarios import scenario_to_json
from ._html_check import Failure, failure_cards, failures_of, matrix
from ._html_page import esc, esc_lines, page, section
from ._html_timeline import left_out, timeline

if TYPE_CHECKING:  # harness.capture reports through harness.reports: no import at run time
    from ..capture import CheckResult
    from ..check import CheckRun, Expectations

__all__ = ["EXIT_MEANINGS", "capture_html", "check_html", "write_html"]

EXIT_MEANINGS = {
    0: "conforming: every rule that applied held, and something was checked",
    1: "a rule failed (or an expected failure passed)",
    2: "bad usage or input",
    3: "the subject crashed, hung or broke the protocol (or the command timed out)",
    4: "inconclusive: nothing was checked, so there is no verdict either way",
}


def _header(command: str, facts: Sequence[tuple[str, str]], code: int, why: Sequence[str]) -> str:
    verdict = f"exit {code} — {EXIT_MEANINGS.get(code, 'unknown exit code')}"
    items = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    reasons = "".join(f"<li>{esc(r)}</li>" for r in why)
    listed = f'<ul class="plain">{reasons}</ul>' if reasons else ""
    return (
        f"<header><h1>prefix-harness {esc(command)}</h1>"
        f'<div class="verdict code-{code}" data-exit="{code}">{esc(verdict)}</div>{listed}'
        f'<dl class="facts">{items}</dl></header>'
    )


def _failures(failures: list[Failure]) -> str:
    unexpected = [x for x in failures if x.known is None]
    known = [x for x in failures if x.known is not None]
    parts = []
    if unexpected:
        parts.append(
            section(f"Failures ({len(unexpected)})", failure_cards(unexpected), id_="failures")
        )
    else:
        parts.append(
            section("Failures", '<p class="muted">no unexpected failure.</p>', id_="failures")
        )
    if known:
        parts.append(
            section(f"Expected failures ({len(known)})", failure_cards(known), id_="expected")
        )
    return "\n".join(parts)


def _listing(heading: str, lines: Sequence[str], id_: str) -> str:
    if not lines:
        return ""
    items = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return section(f"{heading} ({len(lines)})", f'<ul class="plain">{items}</ul>', id_=id_)


def _subject_failures(run: CheckRun) -> str:
    """Each crash, hang or protocol error, with the tail of the subject's stderr."""
    if not run.failures:
        return ""
    items = []
    for f in run.failures:
        tail = f.stderr_tail.strip("\n")
        shown = f"<pre>{esc_lines(tail)}</pre>" if tail else ""
        items.append(f"<li><b>{esc(f.kind)}</b> · {esc(f.message or '')}{shown}</li>")
    body = f'<ul class="plain">{"".join(items)}</ul>'
    return section(f"Subject failures ({len(run.failures)})", body, id_="subject-failures")


def _shrunk(run: CheckRun) -> str:
    """Each failing generated scenario (shrunk when it could be) as fixture JSON, folded."""
    if not run.shrunk:
        return ""
    blocks = []
    for s in run.shrunk:
        failed = ", ".join(f.rule for f in s.report.findings if f.status == "fail")
        what = "minimal failing" if s.unshrunk is None else f"failing (not shrunk: {s.unshrunk})"
        fixture = {
            "description": "found by prefix-harness check",
            "scenarios": [scenario_to_json(s.scenario)],
        }
        document = orjson.dumps(fixture, option=orjson.OPT_INDENT_2).decode()
        blocks.append(
            f"<details><summary>{esc(f'{what} generated scenario ({s.dialect}; fails')}"
            f" {esc(failed or 'subject-error')})</summary><pre>{esc_lines(document)}</pre>"
            "</details>"
        )
    heading = f"Generated scenarios that fail ({len(run.shrunk)}), ready to commit as fixtures"
    return section(heading, "\n".join(blocks), id_="shrunk")


def check_html(
    run: CheckRun,
    *,
    seed: int | None = None,
    exit_code: int | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The page of a ``check`` run (``seed`` as given on the command line); ``exit_code`` is
    the command's when it is not the run's own (``--fail-on warning``), and ``notes`` say
    why, under the verdict."""
    failures = failures_of(
        run.reports,
        lambda r, f: None if (e := run.expected_failure(r, f)) is None else e.reason,
    )
    unexpected = sum(x.known is None for x in failures)
    facts = [
        ("subject", run.subject),
        ("dialects", ", ".join(run.dialects)),
        ("seed", "derandomized (none given)" if seed is None else str(seed)),
        ("scenario runs", f"{len(run.reports):,} ({run.generated:,} generated)"),
        ("failures", f"{unexpected} unexpected, {len(failures) - unexpected} expected"),
        ("unexpected passes", str(len(run.unexpected_passes))),
        ("subject failures", f"{len(run.failures)} (crashed, hung or broke the protocol)"),
    ]
    if run.stopped:
        facts.append(("stopped", run.stopped))
    body = [
        _header(
            "check",
            facts,
            run.exit_code if exit_code is None else exit_code,
            (*notes, *run.inconclusive),
        ),
        section("Rules × dialects", matrix(run.reports, run.dialects, failures), id_="matrix"),
        _failures(failures),
        _listing(
            "Unexpected passes",
            [
                f"{where} · {e.rule}: expected to fail ({e.reason})"
                for e, where in run.unexpected_passes
            ],
            "unexpected-passes",
        ),
        _subject_failures(run),
        _shrunk(run),
    ]
    return page(f"prefix-harness check: {run.subject}", "\n".join(b for b in body if b))


def capture_html(
    result: CheckResult,
    *,
    command: str,
    exit_code: int,
    subject: str,
    expected: Expectations | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The page of a ``capture`` or ``check-log`` check (``command`` names which); the exit
    code is the command's, expectations and a time-out included; ``notes`` say why it is
    not the check's own, under the verdict."""
    failures = failures_of(
        result.reports,
        lambda r, f: (
            None
            if expected is None
            or (e := expected.expected(r.subject, r.scenario_id, r.dialect, f.rule)) is None
            else e.reason
        ),
    )
    dialects = list(dict.fromkeys(c.first.dialect for r in result.roles for c in r.conversations))
    count = sum(len(r.conversations) for r in result.roles)
    failed = sum(c.report.failed for c in result.checks)
    unexpected = sum(x.known is None for x in failures)
    facts = [
        ("subject", subject),
        ("dialects", ", ".join(dialects) or "(none)"),
        ("requests", f"{result.requests:,} used, {len(result.ignored):,} left out"),
        ("conversations", f"{count:,}"),
        (
            "groups",
            f"{len(result.checks)} checked, {failed} failed, {len(result.not_checked)} not checked",
        ),
        ("turns", f"{len(result.turns)} conversations checked append-only"),
        ("failures", f"{unexpected} unexpected, {len(failures) - unexpected} expected"),
    ]
    checks = [f"{c.id}: {c.what}" for c in (*result.checks, *result.turns)]
    body = [
        _header(command, facts, exit_code, (*notes, *result.inconclusive)),
        section("Requests per conversation", timeline(result), id_="timeline"),
        section("Rules × dialects", matrix(result.reports, dialects, failures), id_="matrix"),
        _failures(failures),
        _listing("Checks", checks, "checks"),
        _listing(
            "Not checked", [f"{n.what}: {n.reason}" for n in result.not_checked], "not-checked"
        ),
        _listing("Left out", left_out(result), "left-out"),
    ]
    return page(f"prefix-harness {command}: {subject}", "\n".join(b for b in body if b))


def write_html(path: str | Path, document: str) -> str | None:
    """Write the page to ``path`` (UTF-8) whole, beside it and renamed into place (an old
    page stays until then); None, or one sentence saying why it could not be."""
    from .._files import write_whole

    try:
        write_whole(path, document.encode("utf-8", "backslashreplace"))
    except OSError as e:
        return f"{path}: the HTML report cannot be written ({e.strerror or e})"
    return None
