"""A toy agent runtime with a ``fork`` tool, to try ``prefix-harness capture`` on.

It talks to OpenAI chat completions over HTTP with the standard library alone, reading
OPENAI_BASE_URL and OPENAI_API_KEY as the official SDKs do, so under capture it talks to the
fake provider. A ``fork`` call runs a worker seeded the way docs/protocol.md
("Lifecycles") describes (parent history, one placeholder result per call, then the child
message); the parent gets the same placeholders. The workers of a turn run one after the
other, each to its end, before the parent's next turn: a runtime of one thread, whose
requests come in the same order on every run. A fork requested inside a worker is
rejected.

    prefix-harness capture --dialect openai --script examples/capture/fork-siblings.json \
        -- python3 examples/capture/toy_agent.py
"""

from __future__ import annotations

import copy
import json
import os
import urllib.request
from typing import Any

SYSTEM = "You are a toy agent. Use the fork tool to delegate."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "fork",
            "description": "Fork a worker that inherits this conversation.",
            "parameters": {
                "type": "object",
                "properties": {"directive": {"type": "string"}},
                "required": ["directive"],
            },
        },
    }
]
BOILERPLATE = (
    "<fork-boilerplate>\nYou are a forked worker: do the directive, do not fork.\n"
    "</fork-boilerplate>"
)
PLACEHOLDER = "Fork started in the background."
REJECTED = "Error: fork is not available inside a fork child."

reports: dict[str, str] = {}


def complete(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """One chat completion: POST {OPENAI_BASE_URL}/chat/completions, the answer's message."""
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    body = json.dumps({"model": "toy-model", "messages": messages, "tools": TOOLS}).encode()
    headers = {
        "Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}",
        "Content-Type": "application/json",
    }
    request = urllib.request.Request(f"{base}/chat/completions", data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        message: dict[str, Any] = json.load(response)["choices"][0]["message"]
    return message


def turn(messages: list[dict[str, Any]], *, in_fork: bool) -> str:
    """Ask the model until it answers without calls; returns its last text."""
    while True:
        message = complete(messages)
        calls = message.get("tool_calls") or []
        entry: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if calls:
            entry["tool_calls"] = [
                {"id": c["id"], "type": "function", "function": c["function"]} for c in calls
            ]
        messages.append(entry)
        if not calls:
            return str(message.get("content") or "")
        placeholders = [
            {"role": "tool", "tool_call_id": c["id"], "content": PLACEHOLDER} for c in calls
        ]
        for call in calls:
            if in_fork:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": REJECTED})
                continue
            directive = json.loads(call["function"]["arguments"])["directive"]
            child = [*copy.deepcopy(messages), *placeholders]
            child.append({"role": "user", "content": f"{BOILERPLATE}\nDirective: {directive}"})
            work(child, directive)
        if not in_fork:
            messages.extend(placeholders)


def work(messages: list[dict[str, Any]], directive: str) -> None:
    reports[directive] = turn(messages, in_fork=True)


def main() -> None:
    history = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Look around."}]
    print("parent:", turn(history, in_fork=False))
    for directive, report in sorted(reports.items()):
        print(f"worker {directive!r}: {report}")


if __name__ == "__main__":
    main()
