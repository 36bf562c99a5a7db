"""The example exchange of docs/protocol.md is real: every line is valid against its schema,
the replies echo their requests, and the Node example answers exactly so."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.dialects import get_dialect
from harness.protocol import MessageKind, validate_message

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
NODE_SUBJECT = ROOT / "examples" / "node-subject" / "subject.js"
_BLOCK = re.compile(r"^```jsonl example-exchange\n(.*?)^```$", re.DOTALL | re.MULTILINE)
_REPLY_KIND: dict[str, MessageKind] = {"start": "start-reply", "assemble": "assemble-reply"}


def exchange() -> list[tuple[MessageKind, dict[str, Any], bytes]]:
    """(kind, message, line) for every line of the example, in order."""
    match = _BLOCK.search(DOC.read_text(encoding="utf-8"))
    assert match, "docs/protocol.md has no ```jsonl example-exchange block"
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
    requests = b"".join(
        line + b"\n" for kind, _, line in lines if kind in ("start", "assemble", "stop")
    )
    replies = [line for kind, _, line in lines if kind.endswith("reply")]
    done = subprocess.run(
        ["node", str(NODE_SUBJECT)], input=requests, capture_output=True, timeout=30, check=True
    )
    assert done.stdout.splitlines() == replies
