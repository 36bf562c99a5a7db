"""A toy agent runtime with a ``fork`` tool on OpenAI's Responses API (the official SDK,
``store=False``, the whole input sent each turn), for the capture tests.

The parent streams its turns (``responses.stream``), workers ask without streaming. A fork
call starts a worker seeded with the parent's instructions, tools and input items, the
model's output items as returned, one placeholder ``function_call_output`` per call and the
child message; the parent gets the same placeholders. A fork inside a worker is refused.
Run it under ``prefix-harness capture --dialect openai-responses`` with
``examples/capture/fork-siblings.json``; ``--bug tools`` reorders a worker's tools,
``--bug respell`` sends a worker's inherited items with their keys in reverse order (the same
prompt to the provider, other bytes).
"""

from __future__ import annotations

import copy
import json
import sys
import threading
from typing import Any

import openai

SYSTEM = "You are a toy agent. Use the fork tool to delegate."
TOOLS: list[Any] = [
    {
        "type": "function",
        "name": "fork",
        "description": "Fork a worker that inherits this conversation.",
        "parameters": {
            "type": "object",
            "properties": {"directive": {"type": "string"}},
            "required": ["directive"],
        },
        "strict": False,
    },
    {
        "type": "function",
        "name": "read_file",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        "strict": False,
    },
]
BOILERPLATE = (
    "<fork-boilerplate>\nYou are a forked worker: do the directive, do not fork.\n"
    "</fork-boilerplate>"
)
PLACEHOLDER = "Fork started in the background."
REJECTED = "Error: fork is not available inside a fork child."

client = openai.OpenAI(max_retries=0, timeout=10)
workers: list[threading.Thread] = []
reports: dict[str, str] = {}
bug = sys.argv[2] if sys.argv[1:2] == ["--bug"] else None


def ask(items: list[Any], tools: list[Any], *, in_fork: bool) -> Any:
    """One model turn: streamed for the parent, a plain request for a worker."""
    settings: dict[str, Any] = {"model": "toy-model", "instructions": SYSTEM, "store": False}
    if in_fork:
        return client.responses.create(input=items, tools=tools, **settings)
    with client.responses.stream(input=items, tools=tools, **settings) as stream:
        return stream.get_final_response()


def turn(items: list[Any], tools: list[Any], *, in_fork: bool) -> str:
    """Ask the model until it answers without calls; returns its last text."""
    while True:
        reply = ask(items, tools, in_fork=in_fork)
        items.extend(item.model_dump(exclude_none=True) for item in reply.output)
        calls = [item for item in reply.output if item.type == "function_call"]
        if not calls:
            return str(reply.output_text)
        placeholders = [
            {"type": "function_call_output", "call_id": c.call_id, "output": PLACEHOLDER}
            for c in calls
        ]
        for call in calls:
            if in_fork:
                items.append(
                    {"type": "function_call_output", "call_id": call.call_id, "output": REJECTED}
                )
                continue
            directive = json.loads(call.arguments)["directive"]
            child = [*copy.deepcopy(items), *placeholders]
            if bug == "respell":
                child = [dict(reversed(list(item.items()))) for item in child]
            child.append({"role": "user", "content": f"{BOILERPLATE}\nDirective: {directive}"})
            worker_tools = list(reversed(tools)) if bug == "tools" else tools
            worker = threading.Thread(target=work, args=(child, worker_tools, directive))
            workers.append(worker)
            worker.start()
        if not in_fork:
            items.extend(placeholders)


def work(items: list[Any], tools: list[Any], directive: str) -> None:
    reports[directive] = turn(items, tools, in_fork=True)


def main() -> None:
    print("parent:", turn([{"role": "user", "content": "Look around."}], TOOLS, in_fork=False))
    for worker in workers:
        worker.join()
    for directive, report in sorted(reports.items()):
        print(f"worker {directive!r}: {report}")


if __name__ == "__main__":
    main()
