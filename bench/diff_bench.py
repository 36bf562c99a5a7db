"""Benchmark of ``prefix-harness diff``: start-up, whole process against the parse floor in
three spellings of the same JSON, memory, scaling, and the peers on the same files.

Prints, in one run:

- start-up of ``--help`` and of each command's ``--help`` (``startup_bench.py``), and the
  heavy modules each imports (none);
- for a ~5 MB and a ~55 MB pair (a parent and its fork, which keeps the prefix; OpenAI's
  unless ``--dialect`` or ``--shape structured`` says otherwise), each written three ways
  (compact as orjson writes it, indented by two spaces, and Python's ``json.dumps``
  defaults, ``", "`` and ``": "``): ``diff`` as a whole process against a process that only
  reads both files and parses them with orjson (target <= 1.6x, in every spelling); peak
  memory of the two processes; and, each as a whole process on the same files, DeepDiff,
  dictdiffer (if installed), jsondiffpatch through Node (installed into a temporary folder
  with npm, if Node and the registry are there) and ``cmp -n`` over the parent's size (the
  physical bound: bytes compared up to where they part, nothing parsed), which ``diff`` is
  to stay ahead of (but ``cmp``);
- ``diff`` in process on histories of 1k / 10k / 100k short messages, per message and per
  step (linear: ~10x per 10x messages).

Times are CPU seconds (user + system, the least of ``--repeats`` runs), which a shared
machine's load disturbs less than wall time; a process reads its modules' bytecode, as an
installed package does (``startup_bench.environment``). Figures, not assertions: a
regression shows as a ratio. ``--small`` runs the same on small bodies, without Node, for a
quick smoke test in CI.

    python3 bench/diff_bench.py [--small] [--repeats N] [--shape text|structured]
        [--dialect openai|openai-responses|gemini]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import startup_bench
from startup_bench import process_seconds

from harness.cli import run

MESSAGE_TEXT = 7_400
FLOOR_SCRIPT = "import sys, orjson; [orjson.loads(open(p, 'rb').read()) for p in sys.argv[1:]]"


def _filler(text: int) -> str:
    """``text`` characters of prose: a long message's body."""
    return ("lorem ipsum dolor sit amet, consectetur adipiscing elit; " * 200)[:text]


def build_bodies(messages: int, text: int = MESSAGE_TEXT) -> tuple[bytes, bytes]:
    """A parent's last request of ``messages`` messages and its fork's first request; a user
    message or a tool result holds ``text`` characters."""
    filler = _filler(text)
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for i in range(messages - 1):
        if i % 3 == 0:
            history.append({"role": "user", "content": f"step {i}: {filler}"})
        elif i % 3 == 1:
            call = {"command": f"grep -rn step{i} .", "timeout": 30}
            history.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {
                                "name": "run_shell",
                                "arguments": orjson.dumps(call).decode(),
                            },
                        }
                    ],
                }
            )
        else:
            history.append({"role": "tool", "tool_call_id": f"call_{i - 1}", "content": filler})
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{t}",
                "description": "A tool. " * 20,
                "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}},
            },
        }
        for t in range(20)
    ]
    parent = {"model": "gpt-4.1", "temperature": 0.2, "messages": history, "tools": tools}
    fork_tail = [
        {"role": "assistant", "content": "Forking.", "tool_calls": []},
        {"role": "user", "content": "<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: go"},
    ]
    fork = {**parent, "messages": history + fork_tail}
    return orjson.dumps(parent), orjson.dumps(fork)


def build_responses_bodies(messages: int, text: int = MESSAGE_TEXT) -> tuple[bytes, bytes]:
    """``build_bodies``' history as an OpenAI Responses input: messages, function calls and
    their outputs as items."""
    filler = _filler(text)
    items: list[dict[str, Any]] = [{"role": "developer", "content": "You are a coding agent."}]
    for i in range(messages - 1):
        if i % 3 == 0:
            items.append({"role": "user", "content": f"step {i}: {filler}"})
        elif i % 3 == 1:
            call = orjson.dumps({"command": f"grep -rn step{i} .", "timeout": 30}).decode()
            items.append(
                {"type": "function_call", "call_id": f"call_{i}", "name": "run_shell"}
                | {"arguments": call}
            )
        else:
            items.append(
                {"type": "function_call_output", "call_id": f"call_{i - 1}", "output": filler}
            )
    tools = [
        {"type": "function", "name": f"tool_{t}", "description": "A tool. " * 20}
        | {"parameters": {"type": "object", "properties": {"arg": {"type": "string"}}}}
        for t in range(20)
    ]
    parent = {"model": "gpt-4.1", "temperature": 0.2, "input": items, "tools": tools}
    fork_tail = [
        {"role": "assistant", "content": "Forking."},
        {"role": "user", "content": "<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: go"},
    ]
    fork = {**parent, "input": items + fork_tail}
    return orjson.dumps(parent), orjson.dumps(fork)


def build_gemini_bodies(messages: int, text: int = MESSAGE_TEXT) -> tuple[bytes, bytes]:
    """``build_bodies``' history as Gemini contents: text parts, function calls and
    function responses."""
    filler = _filler(text)
    contents: list[dict[str, Any]] = []
    for i in range(messages - 1):
        if i % 3 == 0:
            contents.append({"role": "user", "parts": [{"text": f"step {i}: {filler}"}]})
        elif i % 3 == 1:
            call = {"name": "run_shell", "args": {"command": f"grep -rn step{i} ."}}
            contents.append({"role": "model", "parts": [{"functionCall": call}]})
        else:
            answer = {"name": "run_shell", "response": {"output": filler}}
            contents.append({"role": "user", "parts": [{"functionResponse": answer}]})
    declarations = [
        {"name": f"tool_{t}", "description": "A tool. " * 20}
        | {"parameters": {"type": "object", "properties": {"arg": {"type": "string"}}}}
        for t in range(20)
    ]
    parent = {
        "systemInstruction": {"parts": [{"text": "You are a coding agent."}]},
        "tools": [{"functionDeclarations": declarations}],
        "contents": contents,
        "generationConfig": {"temperature": 0.2},
    }
    fork_tail = [
        {"role": "model", "parts": [{"text": "Forking."}]},
        {"role": "user", "parts": [{"text": "<fork-boilerplate>rules</fork-boilerplate>"}]},
    ]
    fork = {**parent, "contents": contents + fork_tail}
    return orjson.dumps(parent), orjson.dumps(fork)


BUILDERS: dict[str, Callable[[int], tuple[bytes, bytes]]] = {
    "openai": build_bodies,
    "openai-responses": build_responses_bodies,
    "gemini": build_gemini_bodies,
}
"""The long-text history in each dialect (``--dialect``); ``--shape structured`` is Anthropic's."""


def build_structured_bodies(messages: int) -> tuple[bytes, bytes]:
    """The same, as Anthropic messages whose tool calls and results are nested objects.

    Bytes per message are alike, but each message holds ~100 small JSON values instead of one
    long string: what a structural differ pays for, per value, and a byte comparison does not.
    """
    history: list[dict[str, Any]] = []
    for i in range(messages):
        if i % 2 == 0:
            rows = [
                {"path": f"src/module_{i}_{r}.py", "line": r, "match": f"step{i} = compute({r})"}
                for r in range(28)
            ]
            content: Any = (
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{i - 1}",
                        "content": orjson.dumps(rows).decode(),
                    }
                ]
                if i
                else "Find every use of compute()."
            )
            if i:
                content.append({"type": "text", "text": f"Results of step {i}, as JSON objects:"})
                content[0]["content"] = [{"type": "text", "text": str(row)} for row in rows]
            history.append({"role": "user", "content": content})
        else:
            query = {
                "pattern": f"step{i}",
                "paths": [f"src/pkg_{k}" for k in range(12)],
                "options": {"context": 2, "case": True, "max": 50, "glob": ["*.py", "*.pyi"]},
                "filters": [{"field": f"f{k}", "op": "eq", "value": k} for k in range(10)],
            }
            history.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"Searching for step {i}."},
                        {"type": "tool_use", "id": f"toolu_{i}", "name": "search", "input": query},
                    ],
                }
            )
    tools = [
        {"name": f"tool_{t}", "description": "A tool. " * 20, "input_schema": {"type": "object"}}
        for t in range(20)
    ]
    parent = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": "You are a coding agent."}
    parent |= {"tools": tools, "messages": history}
    fork_tail = [
        {"role": "assistant", "content": "Forking."},
        {"role": "user", "content": "<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: go"},
    ]
    fork = {**parent, "messages": history + fork_tail}
    return orjson.dumps(parent), orjson.dumps(fork)


SPELLINGS: dict[str, Callable[[bytes], bytes]] = {
    "compact": lambda data: data,
    "indented": lambda data: orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2),
    "json.dumps": lambda data: json.dumps(orjson.loads(data)).encode(),
}
"""The same body written three ways: as built (compact), indented, Python's defaults."""
WHOLE_TARGET = 1.6


def best_of(repeats: int, action: Callable[[], object]) -> float:
    """The least CPU time of ``action`` in this process (see ``process_seconds``)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


def diff_argv(parent: Path, fork: Path) -> list[str]:
    return ["diff", str(parent), str(fork), "--max-body-size", "4G"]


def diff_in_process(parent: Path, fork: Path) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = run(diff_argv(parent, fork))
    if code != 0:
        raise SystemExit(f"diff exited {code}; the benchmark's fork should keep the prefix")


def parse_floor(parent: Path, fork: Path) -> None:
    orjson.loads(parent.read_bytes())
    orjson.loads(fork.read_bytes())


_MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def peak_rss(argv: list[str]) -> int:
    """Peak resident memory in bytes of a fresh process running ``argv``.

    Linux counts the memory of the process a child was forked from in the child's peak
    until it execs, so the child is forked by a small measuring process, not by this
    benchmark, which holds the parsed bodies.
    """
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv],
        env=startup_bench.environment(),
        capture_output=True,
        check=True,
    )
    code, peak = (int(x) for x in done.stdout.split())
    if code not in (0, 1):
        raise SystemExit(f"{argv} exited {code}")
    return peak


DEEPDIFF_SCRIPT = """
import sys, orjson
from deepdiff import DeepDiff
a, b = (orjson.loads(open(p, 'rb').read()) for p in sys.argv[1:])
DeepDiff(a, b)
"""
DICTDIFFER_SCRIPT = """
import sys, orjson, dictdiffer
a, b = (orjson.loads(open(p, 'rb').read()) for p in sys.argv[1:])
list(dictdiffer.diff(a, b))
"""
JSONDIFFPATCH_SCRIPT = """
import { readFileSync } from "node:fs";
import { diff } from "jsondiffpatch";
const [a, b] = process.argv.slice(2).map((p) => JSON.parse(readFileSync(p)));
diff(a, b);
"""


def node_peer(folder: Path) -> tuple[list[str] | None, str]:
    """The command line that diffs two files with jsondiffpatch under Node, installed into
    ``folder``; or None and why it cannot run."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None, "Node or npm is not installed"
    try:
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent", "jsondiffpatch@0.7"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, "npm install jsondiffpatch timed out (no registry?)"
    if done.returncode != 0:
        return None, f"npm install jsondiffpatch failed ({done.stderr.strip()[:80]})"
    script = folder / "diff.mjs"
    script.write_text(JSONDIFFPATCH_SCRIPT)
    return ["node", "--max-old-space-size=8192", str(script)], ""


def peers(node: list[str] | None) -> list[tuple[str, list[str] | None, str]]:
    """Each peer's name, the command line that diffs two files (None: cannot run) and why."""
    listed: list[tuple[str, list[str] | None, str]] = [
        ("deepdiff", [sys.executable, "-c", DEEPDIFF_SCRIPT], "")
    ]
    if importlib.util.find_spec("dictdiffer") is None:
        listed.append(("dictdiffer", None, "not installed (pip install dictdiffer)"))
    else:
        listed.append(("dictdiffer", [sys.executable, "-c", DICTDIFFER_SCRIPT], ""))
    listed.append(("jsondiffpatch", node, ""))
    listed.append(("cmp", ["cmp", "-s", "-n"], ""))  # the parent's size follows
    return listed


def ratio(value: float, target: float | None = None) -> str:
    shown = f"{value:.2f}x"
    return f"{shown} (target <= {target:g}x)" if target is not None else shown


def compare_pair(
    label: str,
    parent: Path,
    fork: Path,
    repeats: int,
    listed: list[tuple[str, list[str] | None, str]],
    peer_limit: float,
) -> float:
    """Whole process against the parse-only one, peak memory and the peers, for one pair of
    files; the ratio of the two processes."""
    size = parent.stat().st_size + fork.stat().st_size
    print(f"\n{label}: {parent.stat().st_size / 1e6:.1f} MB + {fork.stat().st_size / 1e6:.1f} MB")
    files = [str(parent), str(fork)]
    whole = process_seconds([sys.executable, "-m", "harness", *diff_argv(parent, fork)], repeats)
    floor = process_seconds([sys.executable, "-c", FLOOR_SCRIPT, *files], repeats)
    share = whole / floor
    print(f"  whole process: diff {whole:.3f} s, parse only {floor:.3f} s: {ratio(share)}")
    peak = peak_rss([sys.executable, "-m", "harness", *diff_argv(parent, fork)])
    floor_peak = peak_rss([sys.executable, "-c", FLOOR_SCRIPT, *files])
    print(
        f"  peak memory:   diff {peak / 1e6:.0f} MB, parse only {floor_peak / 1e6:.0f} MB:"
        f" {ratio(peak / floor_peak)}; inputs {size / 1e6:.0f} MB"
    )
    for name, argv, why in listed:
        if argv is None:
            print(f"  peer {name:<14} skipped: {why}")
            continue
        if name in ("deepdiff", "dictdiffer") and size > peer_limit:
            print(f"  peer {name:<14} skipped: inputs over --peer-max-mb")
            continue
        if name == "cmp":  # the fork's first bytes against the parent's, to where they part
            argv = [*argv, str(parent.stat().st_size)]
        seconds = process_seconds([*argv, *files], 1 if name != "cmp" else repeats)
        standing = "" if name == "cmp" else ("  diff ahead" if whole < seconds else "  diff BEHIND")
        print(
            f"  peer {name:<14} {seconds:8.3f} s whole process ({seconds / whole:6.2f}x diff's)"
            f"{standing}"
        )
    return share


def scaling(sizes: list[int], text: int, repeats: int, folder: Path) -> None:
    """``diff`` in process on histories of each size: time per message, and per step."""
    print(f"\nscaling: diff in process, messages of ~{text:,} characters")
    times: list[tuple[int, float]] = []
    for messages in sizes:
        parent_bytes, fork_bytes = build_bodies(messages, text)
        parent, fork = folder / "scale-parent.json", folder / "scale-fork.json"
        parent.write_bytes(parent_bytes)
        fork.write_bytes(fork_bytes)
        del parent_bytes, fork_bytes
        seconds = best_of(repeats, partial(diff_in_process, parent, fork))
        floor = best_of(repeats, partial(parse_floor, parent, fork))
        times.append((messages, seconds))
        print(
            f"  {messages:>9,} messages {parent.stat().st_size / 1e6:>7.1f} MB {seconds:>8.3f} s"
            f" {seconds / messages * 1e6:>7.1f} us/message  {seconds / floor:.2f}x parse floor"
        )
    for (n0, t0), (n1, t1) in itertools.pairwise(times):
        print(f"  {n0:,} -> {n1:,} messages ({n1 / n0:.0f}x): time x{t1 / t0:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--small", action="store_true", help="small bodies, no Node: a smoke test")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument(
        "--shape",
        choices=["text", "structured"],
        default="text",
        help="long text messages (OpenAI) or nested tool calls and results (Anthropic)",
    )
    parser.add_argument(
        "--dialect",
        choices=list(BUILDERS),
        default="openai",
        help="the dialect of the text shape's bodies (default: openai)",
    )
    parser.add_argument(
        "--peer-max-mb",
        type=float,
        default=200.0,
        help="largest pair (both files, MB) to run DeepDiff and dictdiffer on (default: 200)",
    )
    args = parser.parse_args()
    repeats = 1 if args.small else args.repeats
    pairs = [100] if args.small else [1_000, 11_000]  # ~5 MB and ~55 MB bodies of text
    sizes = [100, 1_000, 10_000] if args.small else [1_000, 10_000, 100_000]

    startup_bench.report(startup_bench.help_commands(), repeats)
    with tempfile.TemporaryDirectory(prefix="prefix-bench-") as tmp:
        folder = Path(tmp)
        if args.small:
            node, why = None, "not run with --small"
        else:
            node, why = node_peer(folder)
        listed = [
            (name, argv, why if name == "jsondiffpatch" else reason)
            for name, argv, reason in peers(node)
        ]
        build = BUILDERS[args.dialect] if args.shape == "text" else build_structured_bodies
        warm = [folder / "warm-parent.json", folder / "warm-fork.json"]
        for path, data in zip(warm, build(10), strict=True):
            path.write_bytes(data)
        diff_in_process(*warm)  # the command imports its modules on first use: not timed
        shares: list[tuple[str, float]] = []  # the largest pair's
        for messages in pairs:
            shares.clear()
            parent_bytes, fork_bytes = build(messages)
            for spelling, spell in SPELLINGS.items():
                parent, fork = folder / "parent.json", folder / "fork.json"
                parent.write_bytes(spell(parent_bytes))
                fork.write_bytes(spell(fork_bytes))
                label = f"{messages:,}-message pair, {spelling}"
                share = compare_pair(label, parent, fork, repeats, listed, args.peer_max_mb * 1e6)
                shares.append((label, share))
            del parent_bytes, fork_bytes
        print(f"\nwhole process against parse only, target <= {WHOLE_TARGET:g}x at ~55 MB:")
        for label, share in shares:
            print(f"  {label}: {ratio(share)} {'ok' if share <= WHOLE_TARGET else 'OVER'}")
        scaling(sizes, 400, repeats, folder)


if __name__ == "__main__":
    main()
