"""The examples of docs/dialects.md are real: every body parses in its dialect and renders
back to the same bytes, every neutral block renders to the bodies paired with it, every
prefix stream is the one the harness computes, and the tables of facts match the dialects."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.dialects import all_dialects, get_dialect
from harness.model import Request
from harness.prefix import prefix_stream
from harness.scenarios import ScenarioFormatError, scenario_from_json

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "dialects.md"
_FENCE = re.compile(r"^```([a-z]+)([^`\n]*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, its info-string attributes, its text, its line."""

    lang: str
    attrs: dict[str, str]
    text: str
    line: int

    @property
    def label(self) -> str:
        return f"docs/dialects.md line {self.line}"


def blocks(doc: str | None = None) -> list[Block]:
    """Every fenced block of the page, in order."""
    text = DOC.read_text(encoding="utf-8") if doc is None else doc
    out = []
    for match in _FENCE.finditer(text):
        words = match.group(2).split()
        attrs = dict(w.split("=", 1) if "=" in w else (w, "") for w in words)
        line = text.count("\n", 0, match.start()) + 1
        out.append(Block(match.group(1), attrs, match.group(3), line))
    return out


def wire_blocks(found: list[Block]) -> list[Block]:
    return [b for b in found if b.lang == "json" and "dialect" in b.attrs]


def neutral_blocks(found: list[Block]) -> dict[str, Block]:
    neutral = [b for b in found if b.lang == "json" and b.attrs.get("neutral") == ""]
    return {b.attrs["id"]: b for b in neutral}


def neutral_request(block: Block) -> Request:
    """A neutral block (a scenario's preset and history) as a request, schema-checked."""
    data: dict[str, Any] = orjson.loads(block.text)
    scenario = scenario_from_json(
        {"id": "docs-example", "action": "fork", "directives": ["Go on."], **data},
        source=block.label,
    )
    return Request(scenario.preset, scenario.history)


def wire_problem(block: Block) -> str | None:
    """Why a body block is not a body of its dialect in the render's canonical form."""
    dialect = get_dialect(block.attrs["dialect"])
    compact = orjson.dumps(orjson.loads(block.text))
    again = dialect.render(dialect.parse(orjson.loads(compact)).request)
    if again != compact:
        return f"{block.label}: renders back as\n{again.decode()}\nnot\n{compact.decode()}"
    return None


def pairing_problem(block: Block, neutral: Block) -> str | None:
    """Why a body block is not what its neutral block renders to in its dialect."""
    rendered = get_dialect(block.attrs["dialect"]).render(neutral_request(neutral))
    compact = orjson.dumps(orjson.loads(block.text))
    if rendered != compact:
        return f"{block.label}: the neutral block renders to\n{rendered.decode()}"
    return None


def test_the_page_has_examples_of_every_dialect() -> None:
    found = blocks()
    assert {b.attrs["dialect"] for b in wire_blocks(found)} == set(all_dialects())
    assert neutral_blocks(found), "no neutral block"
    assert any(b.lang == "text" and "prefix-stream" in b.attrs for b in found)


@pytest.mark.parametrize("block", wire_blocks(blocks()), ids=lambda b: f"line{b.line}")
def test_every_body_parses_and_renders_back_byte_for_byte(block: Block) -> None:
    assert wire_problem(block) is None, wire_problem(block)


@pytest.mark.parametrize(
    "block",
    [b for b in wire_blocks(blocks()) if "neutral" in b.attrs],
    ids=lambda b: f"line{b.line}",
)
def test_every_paired_body_is_what_its_neutral_block_renders_to(block: Block) -> None:
    neutral = neutral_blocks(blocks()).get(block.attrs["neutral"])
    assert neutral is not None, f"{block.label}: no neutral block {block.attrs['neutral']!r}"
    assert neutral.line < block.line, f"{block.label}: its neutral block comes after it"
    assert pairing_problem(block, neutral) is None, pairing_problem(block, neutral)


@pytest.mark.parametrize("name", sorted(neutral_blocks(blocks())))
def test_every_neutral_block_is_valid_scenario_json_and_is_shown_on_the_wire(name: str) -> None:
    neutral = neutral_blocks(blocks())[name]
    neutral_request(neutral)  # raises ScenarioFormatError naming the line otherwise
    paired = [b for b in wire_blocks(blocks()) if b.attrs.get("neutral") == name]
    assert paired, f"{neutral.label}: no body is paired with neutral block {name!r}"


def test_every_prefix_stream_is_the_stream_of_the_body_before_it() -> None:
    found = blocks()
    streams = [
        (i, b) for i, b in enumerate(found) if b.lang == "text" and "prefix-stream" in b.attrs
    ]
    for i, block in streams:
        body = found[i - 1] if i else None
        assert body is not None, f"{block.label}: no body before it"
        assert "dialect" in body.attrs, f"{block.label}: the block before it is not a body"
        parsed = get_dialect(body.attrs["dialect"]).parse(orjson.loads(body.text))
        assert bytes(prefix_stream(parsed)).decode() == block.text, block.label


def test_the_marker_facts_are_the_dialect_facts() -> None:
    text = DOC.read_text(encoding="utf-8")
    markers = get_dialect("anthropic").facts.markers
    assert markers is not None
    assert f"| markers one request may carry | {markers.limit} |" in text
    assert f"for a cached entry | {markers.lookback} |" in text
    assert f"| the ttl of a marker that names none | `{markers.default_ttl}` |" in text


def test_the_cache_keys_table_is_the_dialect_facts() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w-]+)` \| `([\w.]+)` \| `(\w+)` \|$", text, re.MULTILINE)
    documented = {(d, setting): scope for d, setting, scope in rows}
    actual = {
        (name, setting): scope
        for name, dialect in all_dialects().items()
        for setting, scope in dialect.facts.cache_keys.items()
    }
    assert documented == actual


# --- the checks can fail -------------------------------------------------------------


def _first(lang_attr: str) -> Block:
    return next(b for b in wire_blocks(blocks()) if b.attrs.get("dialect") == lang_attr)


def test_a_body_with_keys_out_of_canonical_order_is_caught() -> None:
    block = _first("openai")
    data = orjson.loads(block.text)
    reordered = dict(reversed(list(data.items())))
    wrong = Block(block.lang, block.attrs, orjson.dumps(reordered).decode(), block.line)
    assert wire_problem(wrong) is not None


def test_a_body_that_is_not_the_neutral_rendering_is_caught() -> None:
    block = next(b for b in wire_blocks(blocks()) if b.attrs.get("neutral") == "parts")
    neutral = neutral_blocks(blocks())["parts"]
    text = block.text.replace("Fix it.", "Fix it now.")
    assert text != block.text
    wrong = Block(block.lang, block.attrs, text, block.line)
    assert wire_problem(wrong) is None  # still a canonical body of its dialect ...
    assert pairing_problem(wrong, neutral) is not None  # ... but not the neutral one's


def test_an_invalid_neutral_block_is_caught() -> None:
    neutral = neutral_blocks(blocks())["parts"]
    text = neutral.text.replace('"role": "model"', '"role": "assistant"', 1)
    with pytest.raises(ScenarioFormatError):
        neutral_request(Block(neutral.lang, neutral.attrs, text, neutral.line))


def test_blocks_reads_info_strings() -> None:
    doc = '```json dialect=openai neutral=x\n{"messages":[]}\n```\n'
    (block,) = blocks(doc)
    assert block.attrs == {"dialect": "openai", "neutral": "x"}
    assert block.text == '{"messages":[]}\n'
