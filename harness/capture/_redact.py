"""Keeping secrets out of records: header values and URL query values that may be keys.

Agents under test may hold real credentials; a record is meant to be shared and committed,
so any header or query parameter whose name looks like it carries a secret is replaced.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote_plus

from ..model import FrozenDict

__all__ = ["REDACTED", "is_secret_name", "redact_headers", "redact_query"]

REDACTED = "<redacted>"
_SECRET_NAMES = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key"}
    | {"cookie", "set-cookie"}
)
_SECRET_WORDS = ("key", "token", "secret", "auth", "password", "signature")
_TRANSPORT = frozenset(
    {"host", "content-length", "connection", "transfer-encoding", "accept-encoding"}
    | {"keep-alive", "te", "upgrade"}
)
"""Headers about the connection, not the request: left out of records."""


def is_secret_name(name: str) -> bool:
    """Whether a header or query parameter called ``name`` may carry a secret."""
    lowered = name.lower()
    return lowered in _SECRET_NAMES or any(word in lowered for word in _SECRET_WORDS)


def redact_headers(headers: Iterable[tuple[str, str]]) -> FrozenDict:
    """Headers by lower-cased name, in arrival order, repeats joined with ``", "``; secret
    values replaced with ``<redacted>`` and transport headers left out."""
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key in _TRANSPORT:
            continue
        shown = REDACTED if is_secret_name(key) else value
        out[key] = f"{out[key]}, {shown}" if key in out and shown != REDACTED else shown
    return FrozenDict(out)


def redact_query(query: str) -> str:
    """The query string as received, but with the value of every secret-looking parameter
    (``key=...``) replaced by ``<redacted>``."""
    out = []
    for item in query.split("&") if query else ():
        name, equals, _ = item.partition("=")
        out.append(f"{name}={REDACTED}" if equals and is_secret_name(unquote_plus(name)) else item)
    return "&".join(out)
