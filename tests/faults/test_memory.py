"""Out of memory is a sentence, never a traceback: exit 3 when a subject's output caused it
(a reply flooding stdout without its newline, under a 192 MiB address-space limit set in the
harness's process), exit 2 when the input is too large for the memory given. Each case
asserts the exit code, one sentence and no process of the run left."""

from __future__ import annotations

import resource
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

from .conftest import FAKES, Harness, one_sentence

LIMIT = {resource.RLIMIT_AS: 192 << 20}
"""What the harness's process may map: enough to run, not to hold a 64 MiB reply twice."""


def test_a_subject_flooding_its_stdout_under_a_memory_limit_is_its_failure(
    harness: Callable[..., Harness],
) -> None:
    subject = f"cmd:{sys.executable} {FAKES / 'flood.py'}"
    run = harness("check", "--subject", subject, "--examples", "0", "--dialect", "openai",
                  "--no-progress", limits=LIMIT)  # fmt: skip
    assert run.wait() == 3
    assert run.left() == []
    assert "Traceback" not in run.stderr
    assert run.stderr == ""  # the report says it, as for any failure of the subject
    assert "could not be held in memory: out of memory after" in run.stdout
    assert "verdict: subject failed" in run.stdout


def test_a_body_too_large_for_the_memory_given_is_one_sentence(
    harness: Callable[..., Harness], tmp_path: Path
) -> None:
    body = tmp_path / "big.json"
    messages = [{"role": "user", "content": "x"}] * 1_500_000  # 45 MB, far more once read
    body.write_bytes(orjson.dumps({"model": "m", "messages": messages}))
    diff = harness("diff", str(body), str(body), limits=LIMIT)
    assert diff.wait() == 2
    assert one_sentence(diff.stderr) == (
        "prefix-harness: error: out of memory reading the bodies; lower --max-body-size"
    )
    log = tmp_path / "big.jsonl"
    log.write_bytes(b'{"body": ' + body.read_bytes() + b"}\n")
    check = harness("check-log", str(log), limits=LIMIT)
    assert check.wait() == 2
    assert one_sentence(check.stderr) == (
        "prefix-harness: error: out of memory checking the log; give the check more memory"
    )
    assert diff.left() == check.left() == []
