"""``prefix-harness check`` against a subject that garbles one protocol reply
(``garbling_subject.py``): a reply's keys set to any JSON or dropped, the line replaced by
garbage or bad UTF-8, cut short, an extra line, a crash, a hang, noise on stderr. Whatever
the subject does, check exits with a code of the table (0 to 4), never a traceback, and
within its timeouts."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from ._fuzz import Raw, assert_clean, dumps, fuzz_settings, json_values, mutated_value, run_cli

HERE = Path(__file__).parent
OPENAI = HERE.parents[1] / "examples" / "openai"
BODIES = [orjson.loads((OPENAI / name).read_bytes()) for name in ("parent.json", "fork.json")]
SUBJECT = HERE / "garbling_subject.py"
SCENARIOS = HERE / "scenarios.json"
ALLOWED = {0, 1, 2, 3, 4}
TIMEOUT = 2
KEYS = ["seq", "status", "parent", "children", "follow_ups", "parent_next", "message"]
KEYS += ["ok", "version", "implementation", "cmd", "error", "extra"]
GARBAGE = [
    b"not json\n",
    b"\xff\xfe\xfa\n",
    b"[]\n",
    b"{}\n",
    b'{"seq": 1}\n',
    b'{"seq": 1, "status": "assembled", "parent": "{", "children": []}\n',
    b"\n",
    b"",
    b'{"ok": true, "version": 1}\n',
    b'"' + b"a" * 100_000 + b"\n",
    b"[" * 5000 + b"\n",
    b'{"seq": 1e400}\n',
    b'{"seq": 18446744073709551616}\n',
]


def command(plan: dict[str, Any]) -> list[str]:
    subject = f"cmd:{sys.executable} {SUBJECT} {dumps(plan).hex()}"
    return [
        "check",
        "--subject",
        subject,
        "--fixtures",
        str(SCENARIOS),
        "--examples",
        "0",
        "--dialect",
        "openai",
        "--timeout",
        str(TIMEOUT),
        "--deadline",
        "30",
        "--no-progress",
    ]


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    plan: dict[str, Any] = {"reply": draw(st.integers(0, 2))}
    how = draw(st.sampled_from(["ops", "ops", "body", "bytes", "cut", "crash", "extra", "stderr"]))
    plan["how"] = how
    if how == "body":  # an assembled reply whose parent or child body is mutated
        plan["reply"] = draw(st.integers(1, 2))
        plan["how"] = "ops"
        text = dumps(draw(mutated_value(draw(st.sampled_from(BODIES))))).decode("utf-8", "replace")
        key = draw(st.sampled_from(["parent", "children"]))
        plan["ops"] = [["set", key, text if key == "parent" else [text]]]
    elif how == "ops":
        ops = st.one_of(
            st.tuples(st.just("set"), st.sampled_from(KEYS), json_values()),
            st.tuples(st.just("drop"), st.sampled_from(KEYS)),
        )
        plan["ops"] = draw(st.lists(ops, min_size=1, max_size=3))
    elif how in ("bytes", "extra", "stderr"):
        plan["data"] = draw(st.sampled_from(GARBAGE)).hex()
    elif how == "cut":
        plan["at"] = draw(st.integers(0, 200))
    return plan


def test_the_subject_conforms_untouched() -> None:
    assert run_cli(command({})).code == 0


@fuzz_settings(12)
@given(plans())
@example({"reply": 1, "how": "ops", "ops": [["set", "children", ["{"]]]})
@example({"reply": 0, "how": "bytes", "data": b"\xff\n".hex()})
@example({"reply": 0, "how": "ops", "ops": [("set", "seq", -(2**63) - 1)]})
@example({"reply": 0, "how": "ops", "ops": [("set", "seq", Raw("1e400"))]})
def test_garbled_replies_exit_with_a_code_of_the_table(plan: dict[str, Any]) -> None:
    assert_clean(run_cli(command(plan)), ALLOWED)


def test_a_hanging_subject_is_ended_within_the_timeout() -> None:
    """As a process of its own, so that a hang of the harness would fail here, not hang."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "harness", *command({"reply": 1, "how": "hang"})],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert time.monotonic() - started < 40
