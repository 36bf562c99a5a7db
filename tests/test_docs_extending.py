"""docs/extending.md walks through the toy dialect of tests/dialects/test_toy.py: its
example body is a toy body, and its facts are the test's."""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from tests.dialects.test_toy import FACTS, ToyDialect

DOC = Path(__file__).resolve().parents[1] / "docs" / "extending.md"


def test_the_example_body_reads_as_a_toy_body_and_renders_back() -> None:
    text = DOC.read_text(encoding="utf-8")
    (body,) = re.findall(r"^```json\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)
    dialect = ToyDialect()
    parsed = dialect.parse(orjson.loads(body))
    assert [s.name for s in parsed.segments][:2] == ["system", "tools[0]"]
    assert [m.role for m in parsed.request.history] == ["user", "model", "user"]
    assert dialect.render(parsed.request) == orjson.dumps(orjson.loads(body))


def test_the_facts_shown_are_the_toys() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert f'name="{FACTS.name}"' in text
    assert f'title="{FACTS.title}"' in text
    assert f'provider="{FACTS.provider}"' in text
    for link in FACTS.links:
        assert f'Link("{link.topic}", "{link.url}", "{link.read}")' in text
    assert "tests/dialects/test_toy.py" in text
