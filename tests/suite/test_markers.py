"""Marker names of suite items: usable in ``-m`` expressions and as Python names."""

import pytest

from harness.suite import marker_name


@pytest.mark.parametrize(
    ("kind", "value", "name"),
    [
        ("dialect", "openai-responses", "dialect_openai_responses"),
        ("lifecycle", "one-shot", "lifecycle_one_shot"),
        ("family", "my.corpus", "family_my_corpus"),
        ("family", "oneshot", "family_oneshot"),
    ],
)
def test_marker_names_are_identifiers(kind: str, value: str, name: str) -> None:
    assert marker_name(kind, value) == name
    assert name.isidentifier()
