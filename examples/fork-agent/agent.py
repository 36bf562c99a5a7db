"""A small agent runtime with a fork tool and a delegate (spawn) tool, for
``prefix-harness capture``.

It talks to OpenAI chat completions over HTTP with the standard library alone (no SDK to
install), reading OPENAI_BASE_URL and OPENAI_API_KEY as the official SDKs do, so under
capture it talks to the fake provider. The parent loop calls the model until it answers
without calls; its tools are:

- ``fork``: a worker in a background thread that inherits the parent's system prompt, tools
  and history as sent (docs/protocol.md, "Lifecycles"): one placeholder result per open call,
  then the child message (boilerplate and directive), a short model acknowledgement and
  ``Begin.``. The parent gets a "running in the background" result at once. A fork asked for
  inside a worker is refused with an error result.
- ``delegate``: a spawned child with a fresh history holding only the prompt
  (docs/protocol.md, "Lifecycles"); the parent waits for its answer.
- ``read_file``: a canned answer.

``--bug NAME`` plants one regression the check must catch:

- ``timestamp``: the worker's system prompt gets today's date (system-identical fails);
- ``tools``: the worker's tool list is reordered (tools-identical fails);
- ``recursion``: no recursion guard, so a worker can fork (recursion-rejected fails);
- ``placeholder``: each worker's placeholder results name the call that started it, so
  siblings part before their directive (siblings-shared fails).

    prefix-harness capture --dialect openai --script examples/fork-agent/script.json \\
        -- python3 examples/fork-agent/agent.py [--bug NAME]
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import threading
import traceback
import urllib.request
from typing import Any

MODEL = "fork-agent-model"
SYSTEM = (
    "You are Tidy, a careful coding agent. Work in small steps and say what you changed. "
    "Use fork to run independent pieces of work in parallel, and delegate for a "
    "self-contained question."
)
HELPER_SYSTEM = "You answer one self-contained question briefly."


def _tool(name: str, description: str, argument: str, about: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {argument: {"type": "string", "description": about}},
        "required": [argument],
    }
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


TOOLS = [
    _tool("read_file", "Read a file of the repository.", "path", "Path from the root."),
    _tool(
        "fork",
        "Fork a worker that inherits this conversation and carries out one directive.",
        "directive",
        "What the worker must do.",
    ),
    _tool(
        "delegate",
        "Ask a helper with a fresh context one self-contained question.",
        "prompt",
        "The whole question.",
    ),
]
WORKER_RULES = (
    "<fork-boilerplate>\n"
    "You are a forked worker. The conversation above is shared context; the directive below "
    "is your only assignment.\n"
    "Do not start forks of your own.\n"
    "Finish with a short report.\n"
    "</fork-boilerplate>\n\n"
    "Directive: "
)
PLACEHOLDER = "Placeholder result: this call is not part of the forked worker's task."
ACKNOWLEDGEMENT = "Understood. Starting on the directive now."
BACKGROUND = "A forked worker is running this directive in the background."
REFUSED = "Error: fork refused: a forked worker cannot start forks."

bug: str | None = None
workers: list[threading.Thread] = []
reports: dict[str, str] = {}
lock = threading.Lock()


def complete(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """One chat completion: POST {OPENAI_BASE_URL}/chat/completions, the answer's message."""
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    body = json.dumps({"model": MODEL, "messages": messages, "tools": tools}).encode()
    request = urllib.request.Request(
        f"{base}/chat/completions",
        data=body,
        headers={
            "Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.load(response)
    message: dict[str, Any] = answer["choices"][0]["message"]
    return message


def run(messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, in_fork: bool) -> str:
    """Call the model until it answers without calls; its last text."""
    while True:
        message = complete(messages, tools)
        calls = message.get("tool_calls") or []
        entry: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if calls:
            entry["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {
                        "name": c["function"]["name"],
                        "arguments": c["function"]["arguments"],
                    },
                }
                for c in calls
            ]
        messages.append(entry)
        if not calls:
            return str(message.get("content") or "")
        results = [
            {"role": "tool", "tool_call_id": c["id"], "content": act(c, messages, tools, in_fork)}
            for c in calls
        ]
        messages.extend(results)


def act(
    call: dict[str, Any], messages: list[dict[str, Any]], tools: list[dict[str, Any]], in_fork: bool
) -> str:
    args = json.loads(call["function"]["arguments"] or "{}")
    name = call["function"]["name"]
    if name == "fork":
        if in_fork and bug != "recursion":
            return REFUSED
        fork(messages, tools, args["directive"], call["id"])
        return BACKGROUND
    if name == "delegate":
        helper = [
            {"role": "system", "content": HELPER_SYSTEM},
            {"role": "user", "content": args["prompt"]},
        ]
        return run(helper, [TOOLS[0]], in_fork=False)
    return f"(contents of {args.get('path', '?')})"


def fork(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], directive: str, call_id: str
) -> None:
    """Start a worker seeded with the parent's request as sent, in the background."""
    seed = copy.deepcopy(messages)
    last = seed[-1]
    placeholder = f"{PLACEHOLDER} (worker of {call_id})" if bug == "placeholder" else PLACEHOLDER
    seed += [
        {"role": "tool", "tool_call_id": c["id"], "content": placeholder}
        for c in last.get("tool_calls", [])
    ]
    seed.append({"role": "user", "content": WORKER_RULES + directive})
    seed.append({"role": "assistant", "content": ACKNOWLEDGEMENT})
    seed.append({"role": "user", "content": "Begin."})
    if bug == "timestamp":
        seed[0] = {"role": "system", "content": f"{SYSTEM}\nToday is {datetime.date.today()}."}
    child_tools = list(reversed(tools)) if bug == "tools" else tools
    worker = threading.Thread(target=work, args=(seed, child_tools, directive))
    with lock:
        workers.append(worker)
    worker.start()


def work(messages: list[dict[str, Any]], tools: list[dict[str, Any]], directive: str) -> None:
    try:
        report = run(messages, tools, in_fork=True)
    except Exception:  # a worker's failure is reported, never lost
        report = "failed:\n" + traceback.format_exc()
    with lock:
        reports[directive] = report


def main() -> None:
    global bug
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bug", choices=["timestamp", "tools", "recursion", "placeholder"])
    bug = parser.parse_args().bug
    history = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Tidy up the repository: list the files and read the README."},
    ]
    print("parent:", run(history, TOOLS, in_fork=False))
    while True:
        with lock:
            if not workers:
                break
            worker = workers.pop()
        worker.join()
    for directive, report in sorted(reports.items()):
        print(f"worker {directive!r}: {report}")


if __name__ == "__main__":
    main()
