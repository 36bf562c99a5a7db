"""Keeping secrets out of records, by allow-list.

Agents under test may hold real credentials, and a record is meant to be shared and
committed. So a record keeps the values of only the headers and URL query parameters that
grouping and diagnostics read (``KEPT_HEADERS``, ``KEPT_HEADER_PREFIXES``, ``KEPT_QUERY``);
every other value is replaced with ``<redacted>`` (the name is kept). Key-shaped strings
(provider key prefixes such as ``sk-`` and ``AIza``, JSON web tokens, ``Bearer`` values)
are redacted inside kept values too, and inside bodies they are replaced by a placeholder of
the same length (``scrub_body``), so that the body stays valid JSON, and a parent and a
child that carry the same key still carry the same bytes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import unquote_plus

from ..model import FrozenDict

__all__ = [
    "KEPT_HEADERS",
    "KEPT_HEADER_PREFIXES",
    "KEPT_QUERY",
    "REDACTED",
    "is_kept_header",
    "is_kept_query",
    "is_secret_name",
    "placeholder",
    "redact_headers",
    "redact_query",
    "scrub_body",
    "scrub_text",
]

REDACTED = "<redacted>"
KEPT_HEADERS = frozenset(
    {"content-type", "content-encoding", "accept", "accept-language", "user-agent"}
    | {"anthropic-version", "anthropic-beta", "openai-beta", "x-goog-api-client"}
    | {"x-stainless-helper-method", "x-stainless-poll-helper"}
)
"""Headers whose values a record keeps: what the body is (type, encoding), which SDK or
program sent it and which API version and beta features it asked for."""
KEPT_HEADER_PREFIXES = ("x-stainless-",)
"""Header name prefixes whose values a record keeps: the official SDKs' own description of
themselves (language, package version, OS, architecture, runtime, retry count, timeout)."""
KEPT_QUERY = frozenset({"alt", "beta", "api-version"})
"""Query parameters whose values a record keeps: Gemini's ``alt=sse`` (the stream format),
Anthropic's ``beta=true`` and an ``api-version``."""
_TRANSPORT = frozenset(
    {"host", "content-length", "connection", "transfer-encoding", "accept-encoding"}
    | {"keep-alive", "te", "upgrade", "expect"}
)
"""Headers about the connection, not the request: left out of records."""

_BEFORE = r"(?:(?<![A-Za-z0-9_\-])|(?<=\\[nrtbf]))"
"""A key starts a word (in a body, a JSON escape such as ``\\n`` may come just before)."""
_KEY = re.compile(
    _BEFORE
    + r"(?:"
    + r"sk-[A-Za-z0-9_\-]{16,}"  # OpenAI, Anthropic (sk-ant-), many OpenAI-compatible ones
    + r"|AIza[A-Za-z0-9_\-]{16,}"  # Google
    + r"|eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"  # a JSON web token
    + r"|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    + r"|xox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack
    + r"|(?:AKIA|ASIA)[A-Z0-9]{16}"  # AWS access key ids
    + r"|(?:hf|gsk|pplx|xai|glpat)[_\-][A-Za-z0-9_\-]{20,}"  # Hugging Face, Groq, ...
    + r")"
    + r"|(?<=[Bb]earer )[A-Za-z0-9._~+/=\-]{8,}"  # a bearer token, whatever its shape
)
_MARKS = (
    *("sk-", "AIza", "eyJ", "gh", "github_pat_", "xox", "AKIA", "ASIA"),
    *("hf", "gsk", "pplx", "xai", "glpat"),
)
"""The literals that every match of ``_KEY`` starts with (a new kind of key there needs its
literal here). Finding literals is fast, while ``_KEY``, its look-behind tried at every
offset, costs about 0.1 ms a kilobyte: so it is tried only where one of them is, or just
after ``_BEARER``."""
_BEARER = "earer "


def is_kept_header(name: str) -> bool:
    """Whether a record keeps the value of the header ``name``."""
    lowered = name.lower()
    return lowered in KEPT_HEADERS or lowered.startswith(KEPT_HEADER_PREFIXES)


def is_kept_query(name: str) -> bool:
    """Whether a record keeps the value of the query parameter ``name``."""
    return name.lower() in KEPT_QUERY


def is_secret_name(name: str) -> bool:
    """Whether a header called ``name`` has its value redacted (every one not kept)."""
    return not is_kept_header(name)


def _keys(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_KEY`` in ``text``, as ``finditer`` finds them (left to right, none
    overlapping), trying it only where a match can start: at a literal of ``_MARKS``, or
    just after a bearer prefix."""
    starts: set[int] = set()
    for mark in (*_MARKS, _BEARER):
        skip = len(mark) if mark == _BEARER else 0
        at = text.find(mark)
        while at >= 0:
            starts.add(at + skip)
            at = text.find(mark, at + 1)
    end = 0
    for start in sorted(starts):
        if start >= end and (key := _KEY.match(text, start)) is not None:
            end = key.end()
            yield key


def _swap(text: str, keys: Iterable[re.Match[str]], by: Callable[[str], str]) -> tuple[str, int]:
    """``text`` with each of ``keys`` (in order, none overlapping) replaced by ``by`` of it,
    and how many were replaced."""
    out: list[str] = []
    done = 0
    for key in keys:
        out += (text[done : key.start()], by(key.group(0)))
        done = key.end()
    if not out:
        return text, 0
    out.append(text[done:])
    return "".join(out), len(out) // 2


def scrub_text(text: str) -> str:
    """``text`` with every key-shaped string replaced by ``<redacted>``."""
    return _swap(text, _keys(text), lambda _: REDACTED)[0]


def placeholder(secret: str) -> str:
    """The deterministic stand-in for ``secret`` in a body: as long as it, the same for the
    same secret, different for different ones, and not key-shaped itself."""
    digest = hashlib.sha256(secret.encode("utf-8")).hexdigest()
    size = len(secret)
    if size < 12:
        return (digest * 2)[:size]
    return ("<secret:" + digest * 2)[: size - 1] + ">"


def scrub_body(body: bytes) -> tuple[bytes, int]:
    """``body`` with every key-shaped string replaced by its ``placeholder``, and how many
    were replaced. Keys are ASCII, and so are placeholders, of the same length: a JSON body
    stays JSON, with the same structure and sizes."""
    text = body.decode("latin-1")  # one byte, one character: offsets and bytes kept
    scrubbed, count = _swap(text, _keys(text), placeholder)
    return (body, 0) if not count else (scrubbed.encode("latin-1"), count)


def redact_headers(headers: Iterable[tuple[str, str]]) -> FrozenDict:
    """Headers by lower-cased name, in arrival order, repeats joined with ``", "``; the
    value of every header not kept replaced with ``<redacted>``, key-shaped strings in
    kept values too, and transport headers left out."""
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key in _TRANSPORT:
            continue
        shown = scrub_text(value) if is_kept_header(key) else REDACTED
        if key in out and shown != REDACTED and out[key] != REDACTED:
            out[key] = f"{out[key]}, {shown}"
        else:
            out[key] = REDACTED if key in out and REDACTED in (shown, out[key]) else shown
    return FrozenDict(out)


def redact_query(query: str) -> str:
    """The query string as received, but with the value of every parameter not kept
    replaced by ``<redacted>``, and key-shaped strings in kept values too."""
    out = []
    for item in query.split("&") if query else ():
        name, equals, value = item.partition("=")
        if not equals:
            out.append(scrub_text(item))
        elif is_kept_query(unquote_plus(name)):
            out.append(f"{name}={scrub_text(value)}")
        else:
            out.append(f"{name}={REDACTED}")
    return "&".join(out)
