"""Redaction by allow-list: only the headers and query parameters that grouping and
diagnostics read keep their values; key-shaped strings are redacted even in those, and
replaced in bodies by placeholders of the same length."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.capture import REDACTED, redact_headers, redact_query
from harness.capture._redact import (
    _KEY,
    _MARKS,
    is_kept_header,
    is_secret_name,
    placeholder,
    scrub_body,
    scrub_text,
)

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
KEYS = [
    "sk-proj-AbCdEfGhIjKlMnOpQrStUv",
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz",
    "AIzaSyA-1234567890abcdefghijklmnop",
    JWT,
    "ghp_abcdefghijklmnopqrstuvwxyz0123",
    "AKIAABCDEFGHIJKLMNOP",
]


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "x-api-key",
        "Cookie",
        "X-Credential",
        "X-JWT",
        "X-Passwd",
        "x-amz-security-token",
        "x-request-id",
        "openai-organization",
    ],
)
def test_every_header_not_kept_is_redacted(name: str) -> None:
    assert is_secret_name(name)
    assert dict(redact_headers([(name, "anything")])) == {name.lower(): REDACTED}


@pytest.mark.parametrize(
    "name",
    ["Content-Type", "user-agent", "anthropic-version", "anthropic-beta", "X-Stainless-Lang"],
)
def test_kept_headers(name: str) -> None:
    assert is_kept_header(name)
    assert dict(redact_headers([(name, "v1")])) == {name.lower(): "v1"}


def test_headers_are_lowercased_joined_and_transport_dropped() -> None:
    headers = redact_headers(
        [
            ("Host", "127.0.0.1:1"),
            ("Content-Length", "10"),
            ("Connection", "keep-alive"),
            ("Authorization", "Bearer sk-1"),
            ("Accept", "a"),
            ("Accept", "b"),
            ("X-Session-Token", "t1"),
            ("X-Session-Token", "t2"),
        ]
    )
    assert dict(headers) == {
        "authorization": REDACTED,
        "accept": "a, b",
        "x-session-token": REDACTED,
    }


@pytest.mark.parametrize("key", KEYS)
def test_key_shaped_values_are_redacted_in_kept_headers(key: str) -> None:
    headers = redact_headers([("User-Agent", f"agent/1.0 ({key})"), ("Accept", f"Bearer {key}")])
    assert dict(headers) == {
        "user-agent": f"agent/1.0 ({REDACTED})",
        "accept": f"Bearer {REDACTED}",
    }


def test_a_bearer_value_of_any_shape_is_redacted() -> None:
    assert scrub_text("Bearer opaque.token/value+x=") == f"Bearer {REDACTED}"
    assert scrub_text("a task-list-of-many-words and risk-free-sk-text") == (
        "a task-list-of-many-words and risk-free-sk-text"
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ""),
        ("alt=sse", "alt=sse"),
        ("beta=true", "beta=true"),
        ("key=AIzaSECRET", "key=<redacted>"),
        ("alt=sse&key=AIza&x=1", "alt=sse&key=<redacted>&x=<redacted>"),
        (
            "sig=abc&code=123&X-Amz-Credential=AK%2F1&pwd=p&jwt=j",
            "sig=<redacted>&code=<redacted>"
            "&X-Amz-Credential=<redacted>&pwd=<redacted>&jwt=<redacted>",
        ),
        ("flag&key=", "flag&key=<redacted>"),
        ("q=a%20b&%61lt=sse", "q=<redacted>&%61lt=sse"),
        (f"alt={JWT}", f"alt={REDACTED}"),
        (f"{KEYS[0]}", REDACTED),
    ],
)
def test_query_values_are_redacted_unless_kept(query: str, expected: str) -> None:
    assert redact_query(query) == expected


@pytest.mark.parametrize("key", KEYS)
def test_a_key_in_a_body_is_replaced_by_a_placeholder_of_its_length(key: str) -> None:
    body = orjson.dumps({"messages": [{"role": "user", "content": f"my key is {key}\nok"}]})
    scrubbed, count = scrub_body(body)
    assert count == 1
    assert key.encode() not in scrubbed
    assert len(scrubbed) == len(body)
    assert orjson.loads(scrubbed)["messages"][0]["content"] == f"my key is {placeholder(key)}\nok"
    assert scrub_body(scrubbed) == (scrubbed, 0)  # a placeholder is not key-shaped


def test_placeholders_are_deterministic_and_tell_keys_apart() -> None:
    assert placeholder(KEYS[0]) == placeholder(KEYS[0])
    assert placeholder(KEYS[0]) != placeholder(KEYS[0][:-1] + "w")
    assert all(len(placeholder(k)) == len(k) for k in [*KEYS, "abcdefgh"])
    parent = orjson.dumps({"system": f"key {KEYS[1]}", "messages": [1]})
    child = orjson.dumps({"system": f"key {KEYS[1]}", "messages": [1, 2]})
    assert scrub_body(child)[0].startswith(scrub_body(parent)[0][:-2])


def test_a_key_after_a_json_escape_and_non_utf8_bodies() -> None:
    body = b'{"a":"x\\n' + KEYS[0].encode() + b'","b":"\xff"}'
    scrubbed, count = scrub_body(body)
    assert count == 1
    assert KEYS[0].encode() not in scrubbed
    assert scrubbed.endswith(b'","b":"\xff"}')
    assert scrub_body(b"nothing here") == (b"nothing here", 0)


PIECES = [
    *("sk-", "AIza", "eyJ", "ghp_", "ghr_", "github_pat_", "xoxb-", "xox", "AKIA", "ASIA"),
    *("hf_", "hf-", "gsk_", "pplx-", "xai_", "glpat-", "Bearer ", "bearer ", "earer "),
    *("\\n", "\\t", "\\", "a", "Z", "0", "-", "_", ".", " ", "/", "=", '"', "é"),
    *("abcdefghij", "ABCDEFGHIJKLMNOP", "0123456789", "eyJhbGciOi.", "x" * 20),
]
"""Key literals, their neighbours and the characters around keys, to build texts from."""


@settings(max_examples=500)
@given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join))
@example("ASIAIzaSyA-1234567890abcdefghijklmnop")  # a key literal inside another one
@example("Bearer sk-proj-AbCdEfGhIjKlMnOpQrStUv")  # a bearer token that is also a key
@example(f"\\n{KEYS[0]}{KEYS[2]} {JWT}.{JWT}")
@example("github_pat_github_pat_github_pat_github_pat_")  # not under the literal gh
def test_scrubbing_finds_what_the_key_pattern_finds(text: str) -> None:
    """Scrubbing tries the key pattern only where a key's literal is: it must find every
    match, and the same ones, that searching the whole text would."""
    assert scrub_text(text) == _KEY.sub(REDACTED, text)
    raw = text.encode("utf-8")
    scrubbed, count = scrub_body(raw)
    wide = raw.decode("latin-1")
    assert count == len(_KEY.findall(wide))
    assert scrubbed.decode("latin-1") == _KEY.sub(lambda m: placeholder(m.group(0)), wide)


def test_every_kind_of_key_starts_with_a_literal_scrubbing_looks_for() -> None:
    keys = [*KEYS, "github_pat_" + "a" * 22, "xoxp-1234567890ab", "ASIAABCDEFGHIJKLMNOP"]
    keys += [f"{p}_abcdefghijklmnopqrstuvwxyz" for p in ("hf", "gsk", "pplx", "xai", "glpat")]
    for key in keys:
        assert _KEY.fullmatch(key), key
        assert scrub_body(f"[{key}]".encode())[1] == 1, key
        assert key.startswith(_MARKS)
