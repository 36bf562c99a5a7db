"""The example exchanges of docs/protocol.md are real: every line is valid against its schema,
the replies echo their requests, and the Node and Python examples answer exactly so. The
messages shown alone in "Messages" are valid too."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.dialects import get_dialect
from harness.protocol import MessageKind, validate_message

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
NODE_SUBJECT = ROOT / "examples" / "node-subject" / "subject.js"
PYTHON_SUBJECT = ROOT / "examples" / "python-subject" / "subject.py"
_REPLY_KIND: dict[str, MessageKind] = {"start": "start-reply", "assemble": "assemble-reply"}
_MESSAGE = re.compile(r"^```json\n(.*?)\n```$", re.MULTILINE)


def exchange(name: str = "example-exchange") -> list[tuple[MessageKind, dict[str, Any], bytes]]:
    """(kind, message, line) for every line of the ```jsonl ``name`` block, in order."""
    block = re.compile(rf"^```jsonl {name}\n(.*?)^```$", re.DOTALL | re.MULTILINE)
    match = block.search(DOC.read_text(encoding="utf-8"))
    assert match, f"docs/protocol.md has no ```jsonl {name} block"
    out: list[tuple[MessageKind, dict[str, Any], bytes]] = []
    last_request = ""
    for line in match.group(1).encode().splitlines():
        message = orjson.loads(line)
        if "cmd" in message:
            last_request = message["cmd"]
            out.append((message["cmd"], message, line))
        else:
            out.append((_REPLY_KIND[last_request], message, line))
    return out


def test_the_example_covers_start_two_assembles_and_stop() -> None:
    kinds = [kind for kind, _, _ in exchange()]
    assert kinds == [
        "start",
        "start-reply",
        "assemble",
        "assemble-reply",
        "assemble",
        "assemble-reply",
        "stop",
    ]
    statuses = [m["status"] for kind, m, _ in exchange() if kind == "assemble-reply"]
    assert statuses == ["assembled", "rejected"]


@pytest.mark.parametrize("index", range(7))
def test_every_line_is_valid_against_its_schema(index: int) -> None:
    kind, message, _ = exchange()[index]
    assert validate_message(kind, message) == []


def test_replies_echo_their_seq_and_bodies_parse_in_the_dialect() -> None:
    lines = exchange()
    for (kind, request, _), (_, reply, _) in itertools.pairwise(lines):
        if kind != "assemble":
            continue
        assert reply["seq"] == request["seq"]
        dialect = get_dialect(request["dialect"])
        bodies = [reply.get("parent"), *reply.get("children", ())]
        for body in filter(None, bodies):
            assert dialect.parse(orjson.loads(body)).request is not None


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_example_answers_exactly_as_documented() -> None:
    lines = exchange()
    replies = [line for kind, _, line in lines if kind.endswith("reply")]
    assert replayed(["node", str(NODE_SUBJECT)], lines) == replies


def replayed(
    argv: list[str], lines: list[tuple[MessageKind, dict[str, Any], bytes]]
) -> list[bytes]:
    """The subject's stdout lines for the requests of ``lines``."""
    requests = b"".join(
        line + b"\n" for kind, _, line in lines if kind in ("start", "assemble", "stop")
    )
    done = subprocess.run(
        argv, input=requests, capture_output=True, timeout=30, check=True, cwd=ROOT
    )
    return done.stdout.splitlines()


def test_the_same_scenario_example_declares_it_and_sends_one_short_assemble() -> None:
    lines = exchange("example-same-scenario")
    kinds = [kind for kind, _, _ in lines]
    assert kinds == [
        *("start", "start-reply", "assemble", "assemble-reply", "assemble", "assemble-reply"),
        "stop",
    ]
    assert lines[1][1]["features"] == ["same-scenario"]
    full, short = lines[2][1], lines[4][1]
    assert "scenario" in full
    assert short == {
        "cmd": "assemble",
        "seq": 2,
        "dialect": short["dialect"],
        "same_scenario": True,
    }
    assert short["dialect"] != full["dialect"]
    for kind, message, _ in lines:
        assert validate_message(kind, message) == []
    for (kind, request, _), (_, reply, _) in itertools.pairwise(lines):
        if kind == "assemble":
            assert reply["seq"] == request["seq"]
            assert reply["status"] == "assembled"
            dialect = get_dialect(request["dialect"])
            for body in filter(None, [reply["parent"], *reply["children"]]):
                assert dialect.parse(orjson.loads(body)).request is not None


def test_the_python_example_answers_the_same_scenario_example_exactly() -> None:
    lines = exchange("example-same-scenario")
    replies = [line for kind, _, line in lines if kind.endswith("reply")]
    assert replayed([sys.executable, str(PYTHON_SUBJECT)], lines) == replies


def messages() -> list[tuple[MessageKind, dict[str, Any]]]:
    """(kind, message) of every one-line ```json block of the section "Messages" that is a
    whole message (those with "..." in them are sketches)."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"^## Messages\n(.*?)(?=^## )", text, re.DOTALL | re.MULTILINE)
    assert match, 'docs/protocol.md has no section "## Messages"'
    out: list[tuple[MessageKind, dict[str, Any]]] = []
    for block in _MESSAGE.finditer(match.group(1)):
        if "..." in block.group(1):
            continue
        message = orjson.loads(block.group(1))
        if "cmd" in message:
            out.append((message["cmd"], message))
        elif "seq" in message:
            out.append(("assemble-reply", message))
        else:
            out.append(("start-reply", message))
    return out


def test_the_messages_shown_alone_are_valid() -> None:
    found = messages()
    assert any(m.get("features") == ["same-scenario"] for _, m in found)
    assert any(m.get("same_scenario") is True for _, m in found)
    for kind, message in found:
        assert validate_message(kind, message) == [], message
