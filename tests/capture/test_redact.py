"""Redaction: secret-looking headers and query parameters never reach a record."""

from __future__ import annotations

import pytest

from harness.capture import REDACTED, redact_headers, redact_query
from harness.capture._redact import is_secret_name


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "x-api-key",
        "X-Goog-Api-Key",
        "api-key",
        "Cookie",
        "Proxy-Authorization",
        "x-amz-security-token",
        "X-Client-Secret",
        "openai-auth-thing",
        "x-my-KEY-id",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["content-type", "user-agent", "anthropic-version", "accept"])
def test_plain_names(name: str) -> None:
    assert not is_secret_name(name)


def test_headers_are_redacted_lowercased_and_transport_dropped() -> None:
    headers = redact_headers(
        [
            ("Host", "127.0.0.1:1"),
            ("Content-Length", "10"),
            ("Connection", "keep-alive"),
            ("Authorization", "Bearer sk-1"),
            ("X-Api-Key", "sk-2"),
            ("Cookie", "session=3"),
            ("Accept", "a"),
            ("Accept", "b"),
            ("X-Session-Token", "t1"),
            ("X-Session-Token", "t2"),
        ]
    )
    assert dict(headers) == {
        "authorization": REDACTED,
        "x-api-key": REDACTED,
        "cookie": REDACTED,
        "accept": "a, b",
        "x-session-token": REDACTED,
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ""),
        ("alt=sse", "alt=sse"),
        ("key=AIzaSECRET", "key=<redacted>"),
        ("alt=sse&key=AIza&x=1", "alt=sse&key=<redacted>&x=1"),
        (
            "api_key=s&access_token=t&Signature=u",
            "api_key=<redacted>&access_token=<redacted>&Signature=<redacted>",
        ),
        ("flag&key=", "flag&key=<redacted>"),
        ("q=a%20b&%6Bey=s", "q=a%20b&%6Bey=<redacted>"),
    ],
)
def test_query_keys_are_redacted(query: str, expected: str) -> None:
    assert redact_query(query) == expected
