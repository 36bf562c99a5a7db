"""Hand-made records for the grouping tests: a tiny simulated runtime that sends neutral
requests (rendered by a dialect) and gets scripted replies, as the fake provider records
them, with the call ids the fake would give."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from harness.assemblers import DEFAULT_WORDING
from harness.capture import Record, Reply, ToolCall, reply_message
from harness.dialects import get_dialect
from harness.model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Text,
    Tool,
    freeze,
)

TOOLS = (
    Tool("read_file", "Read a file.", freeze({"type": "object", "properties": {}})),
    Tool("fork", "Fork a worker.", freeze({"type": "object", "properties": {}})),
    Tool("delegate", "Spawn a helper.", freeze({"type": "object", "properties": {}})),
)
PRESET = Preset(system=("You are a careful agent.",), tools=TOOLS)
ASK = Message("user", (Text("Tidy up the repository."),))


def call(name: str, **args: str) -> ToolCall:
    frozen = freeze(args)
    assert isinstance(frozen, FrozenDict)
    return ToolCall(name, frozen)


def calls(*items: ToolCall, text: str | None = None) -> Reply:
    return Reply(text=text, calls=items)


def text(value: str) -> Reply:
    return Reply(text=value)


def user(*parts: Text | FunctionResponse) -> Message:
    return Message("user", tuple(parts))


def results(message: Message, answer: str, *, error: bool = False) -> Message:
    """A user message answering every call of ``message`` with ``answer``."""
    return user(
        *(FunctionResponse(c.name, answer, c.id, is_error=error) for c in message.function_calls)
    )


@dataclass
class Runtime:
    """Sends requests in one dialect and records them as the fake would."""

    dialect: str = "openai"
    records: list[Record] = field(default_factory=list)

    def send(
        self,
        history: Sequence[Message],
        reply: Reply,
        *,
        preset: Preset = PRESET,
        mark: str | None = None,
        status: int = 200,
    ) -> Message:
        """Record one request; the model message the fake answered with."""
        body = get_dialect(self.dialect).render(Request(preset, tuple(history)))
        nth = len(self.records) + 1
        self.records.append(
            Record(
                seq=nth,
                time="2026-01-01T00:00:00.000000Z",
                dialect=self.dialect,
                method="POST",
                path="/v1/chat/completions",
                query="",
                headers=FrozenDict(),
                status=status,
                body=body,
                body_size=len(body),
                mark=mark,
                rule=0,
                nth=nth,
                reply=reply if status == 200 else None,
                json=orjson.loads(body),
            )
        )
        return reply_message(self.dialect, reply, nth)

    @property
    def seq(self) -> int:
        return len(self.records)


def child_history(
    parent: Sequence[Message], turn: Message, directive: str, *, placeholder: str | None = None
) -> tuple[Message, ...]:
    """The reference fork history (docs/protocol.md) for a parent ending with ``turn``'s calls."""
    wording = DEFAULT_WORDING
    answer = placeholder or wording.placeholder
    closing = user(
        *(FunctionResponse(c.name, answer, c.id) for c in turn.function_calls),
        Text(wording.child_message(directive)),
    )
    ack = Message("model", (Text(wording.acknowledgement),))
    return (*parent, turn, closing, ack, user(Text(wording.begin)))


def fork_calls(message: Message) -> tuple[FunctionCall, ...]:
    return tuple(c for c in message.function_calls if c.name == "fork")


def minimal_log(rt: Runtime, path: Path) -> Path:
    """``rt``'s requests as a log in the minimal format (body text and dialect, no replies),
    as a proxy would have captured them."""
    with path.open("wb") as out:
        for record in rt.records:
            assert record.body is not None
            line = {"body": record.body.decode(), "dialect": record.dialect}
            out.write(orjson.dumps(line) + b"\n")
    return path


def interleaved(rt: Runtime, conversations: int, turns: int) -> None:
    """``conversations`` independent conversations of ``turns`` turns, one turn of each in
    turn: request ``t * conversations + k + 1`` is conversation ``k``'s turn ``t``."""
    histories: list[list[Message]] = [
        [user(Text(f"Task {k}: summarize file {k}."))] for k in range(conversations)
    ]
    for _ in range(turns):
        for k, history in enumerate(histories):
            history += [rt.send(history, text(f"Summary of {k}.")), user(Text("Shorter."))]


def long_conversation(rt: Runtime, turns: int) -> list[Message]:
    """One conversation of ``turns`` requests, each the one before plus two messages."""
    history = [ASK]
    for turn in range(turns):
        history += [rt.send(history, text(f"Step {turn} done.")), user(Text(f"Next {turn}."))]
    return history


def forking_parent(rt: Runtime, turns: int, children: int) -> list[Message]:
    """A parent whose every turn forks ``children`` workers (directives ``T-K``), each
    sending its first request and one follow-up before the parent's next turn."""
    history = [ASK]
    for t in range(turns):
        directives = [f"Audit directory {t}-{k} and report." for k in range(children)]
        turn = rt.send(history, calls(*(call("fork", directive=d) for d in directives)))
        for directive in directives:
            child = list(child_history(history, turn, directive))
            child += [rt.send(child, text("Clean.")), user(Text("Anything else?"))]
            rt.send(child, text("No."))
        history += [turn, results(turn, "A worker is running this in the background.")]
    rt.send(history, text("All done."))
    return history
