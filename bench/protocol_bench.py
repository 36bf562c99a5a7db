"""Benchmark of the subject protocol: scenarios per second through four subjects.

- ``reference``: the bundled reference in process (``load_subject("reference")``);
- ``canned``: this script as a protocol subject that answers every ``assemble`` with the
  reference's reply, computed beforehand — the protocol's own round trip and nothing else:
  scenario to JSON, the pipe both ways, decoding and encoding in the subject, reading the
  reply and checking its bodies. It declares the ``same-scenario`` feature, so a scenario
  travels once for its runs in every dialect (docs/protocol.md);
- ``canned-full``: the same subject declaring no feature: every request carries the scenario;
- ``python``: the reference behind the protocol (examples/python-subject/subject.py), which
  also reads each scenario with ``scenario_from_json`` (JSON Schema check included);
- ``node``: the plain-Node example subject (examples/node-subject/subject.js), if ``node``
  is installed.

Two workloads, each in every dialect, after a warm-up round, best of ``--repeats``: the
one-shot scenarios of the fixture corpus (``fork`` and ``siblings``, the lifecycle all four
implement) and one fork after a long history (``--long-messages``). The protocol overhead
per scenario is ``canned`` minus nothing (it does no work of its own); target < 2 ms for
the corpus, and <= 1 ms for the round trip of the 400-message fork (printed last, with its
ratio to that target). Process start-up (the ``start`` handshake included) is reported apart.

The round trip of the long fork (``canned``'s, per dialect run: the scenario travels with
the first dialect's request only) is split at the end, and ``canned-full``'s is printed
beside it. The split: the harness's CPU share of it (``time.process_time`` around the round
trips, in the harness's process: encoding the request, the pipe both ways, reading the
reply line) and the subject's own floor (its ``orjson.loads`` of those very request lines
and its encoding of its replies, timed in process): a subject must do both, so no change to
the harness moves that part. Likewise the harness's decoding of the reply line
(``orjson.loads`` and the reply's checks, timed in process) is printed as the part of its
CPU that no change to the pipes or the waiting moves. Last, the transport's floor: the same
number of bytes each way (the request lines, the longest reply line) between this process
and a child that only reads and writes raw bytes (``--echo``: ``os.read``/``os.write``, no
JSON, the pipes widened as the harness widens them), and the sum of the floors, against
which the target can be read.
``--small`` is a smoke for CI: one repeat, the ``reference`` and both ``canned`` subjects only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import orjson

from harness.dialects import all_dialects
from harness.model import FunctionCall, FunctionResponse, Message, Text, freeze
from harness.protocol import (
    SAME_SCENARIO,
    Implementation,
    assemble_reply,
    decode_line,
    encode_assemble,
    encode_line,
    encode_same_scenario,
    read_assemble_reply,
    start_reply,
)
from harness.scenarios import Scenario, load_fixtures, scenario_from_json, scenario_to_json
from harness.subjects import (
    LoadedSubject,
    ReferenceSubject,
    is_subject_failure,
    load_subject,
)
from harness.subjects._process import _widen

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 2.0
LONG_TARGET_MS = 1.0
CANNED = Implementation(
    "canned", "python", tuple(all_dialects()), ("one-shot",), features=(SAME_SCENARIO,)
)
Work = list[tuple[Scenario, str]]


def corpus() -> list[Scenario]:
    """The fork and siblings scenarios of the fixture corpus."""
    return [s for s in load_fixtures(ROOT / "fixtures") if s.action in ("fork", "siblings")]


def long_fork(base: Scenario, messages: int) -> Scenario:
    """A fork with ``base``'s preset after about ``messages`` messages of search calls."""
    history: list[Message] = [Message("user", (Text("Question: " + "lorem ipsum " * 20),))]
    for i in range(messages // 2 - 1):
        call = FunctionCall("search", freeze({"query": f"step {i}", "limit": 5}), id=f"c{i}")
        result = FunctionResponse("search", f"result {i} " * 30, id=f"c{i}")
        history += [Message("model", (Text(f"Looking at step {i}."), call))]
        history += [Message("user", (result,))]
    history.append(Message("model", (Text("Forking now."),)))
    return Scenario("bench-long", "fork", base.preset, tuple(history), directives=("Summarise.",))


def serve_canned(path: str, *, full: bool) -> None:
    """Be the ``canned`` subject: answer from the replies in ``path``, keyed id/dialect;
    with ``full``, declaring no ``same-scenario``."""
    replies = orjson.loads(Path(path).read_bytes())
    out = sys.stdout.buffer
    held = ""
    for line in sys.stdin.buffer:
        request = orjson.loads(line)
        if request["cmd"] == "stop":
            return
        if request["cmd"] == "start":
            reply = start_reply(replace(CANNED, features=()) if full else CANNED)
        else:
            if "scenario" in request:
                held = request["scenario"]["id"]
            reply = {"seq": request["seq"], **replies[f"{held}/{request['dialect']}"]}
        out.write(encode_line(reply))
        out.flush()


def serve_echo(request_sizes: list[int], reply_size: int) -> None:
    """Be the ``--echo`` child: read each of ``request_sizes`` bytes in turn (cycling), write
    ``reply_size`` after each, until the end of input; raw bytes, no JSON."""
    reply = b"x" * reply_size
    while True:
        for request_size in request_sizes:
            got = 0
            while got < request_size:
                chunk = os.read(0, 1 << 20)
                if not chunk:
                    return
                got += len(chunk)
            pending = memoryview(reply)
            while pending:
                pending = pending[os.write(1, pending) :]


def transport_floor(request_sizes: list[int], reply_size: int, repeats: int) -> float:
    """Seconds of one exchange of raw bytes on average, each of ``request_sizes`` there in
    turn and ``reply_size`` back after each, with an ``--echo`` child over pipes widened as
    ``SubjectProcess`` widens them: what moving a round trip's bytes costs here before
    anything is encoded or decoded."""
    sizes = ",".join(map(str, request_sizes))
    args = [sys.executable, __file__, "--echo", f"{sizes}:{reply_size}"]
    child = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None
    assert child.stdout is not None
    _widen(child.stdin)
    _widen(child.stdout)
    send, receive = child.stdin.fileno(), child.stdout.fileno()
    requests = [b"y" * n for n in request_sizes]
    rounds = max(1, 20 // len(requests))

    def exchange() -> None:
        for _ in range(rounds):
            for request in requests:
                pending = memoryview(request)
                while pending:
                    pending = pending[os.write(send, pending) :]
                got = 0
                while got < reply_size:
                    got += len(os.read(receive, 1 << 20))

    try:
        return best_of(max(20, repeats), exchange) / (rounds * len(requests))
    finally:
        child.stdin.close()
        child.wait()


def request_lines(work: Work) -> list[bytes]:
    """The request lines a check sends ``canned`` for ``work``: a scenario's runs after its
    first one in the short form of ``same-scenario``."""
    lines, held = [], None
    for scenario, dialect in work:
        if scenario is held:
            lines.append(encode_same_scenario(1, dialect))
        else:
            lines.append(encode_assemble(1, dialect, orjson.dumps(scenario_to_json(scenario))))
        held = scenario
    return lines


def canned_replies(workloads: dict[str, Work]) -> bytes:
    reference = ReferenceSubject()
    replies = {}
    for work in workloads.values():
        for scenario, dialect in work:
            o = reference.assemble(scenario, dialect)
            reply = assemble_reply(
                1, o.status, parent=o.parent, children=o.children, message=o.message
            )
            replies[f"{scenario.id}/{dialect}"] = {k: v for k, v in reply.items() if k != "seq"}
    return orjson.dumps(replies)


def best_of(repeats: int, action: Callable[[], object]) -> float:
    return timed(repeats, action)[0]


def timed(repeats: int, action: Callable[[], object]) -> tuple[float, float]:
    """The best wall seconds and the best CPU seconds of this process over ``repeats`` runs
    of ``action``, after a warm-up run."""
    action()  # warm-up
    wall = cpu = float("inf")
    for _ in range(repeats):
        started, used = time.perf_counter(), time.process_time()
        action()
        cpu = min(cpu, time.process_time() - used)
        wall = min(wall, time.perf_counter() - started)
    return wall, cpu


def subject_floor(work: Work, replies: bytes, repeats: int) -> tuple[float, float]:
    """Seconds per scenario a subject spends, at the least, on the protocol: decoding each
    request line of ``work`` with orjson (``request_lines``), and encoding its reply (as the
    ``canned`` subject does), in this process, best of ``repeats`` (at least 20)."""
    canned = orjson.loads(replies)
    lines = request_lines(work)
    answers = [{"seq": 1, **canned[f"{s.id}/{d}"]} for s, d in work]
    reading = best_of(max(20, repeats), lambda: [orjson.loads(line) for line in lines])
    writing = best_of(max(20, repeats), lambda: [encode_line(a) for a in answers])
    return reading / len(work), writing / len(work)


def harness_floor(work: Work, replies: bytes, repeats: int) -> float:
    """Seconds per scenario the harness spends, at the least, on a reply once it has read
    the line: decoding it with orjson and checking it (its bodies made bytes), as
    ``SubprocessSubject`` does, in this process, best of ``repeats`` (at least 20)."""
    canned = orjson.loads(replies)
    lines = [
        encode_line({"seq": 1, **canned[f"{scenario.id}/{dialect}"]})[:-1]
        for scenario, dialect in work
    ]
    reading = best_of(
        max(20, repeats), lambda: [read_assemble_reply(decode_line(x), 1) for x in lines]
    )
    return reading / len(work)


def run_round(subject: LoadedSubject, work: Work) -> None:
    for scenario, dialect in work:
        outcome = subject.assemble(scenario, dialect)
        if is_subject_failure(outcome) or outcome.status not in ("assembled", "rejected"):
            raise SystemExit(f"{subject.name}: {scenario.id} in {dialect}: {outcome}")


def measure(
    spec: str, workloads: dict[str, Work], repeats: int
) -> tuple[float, dict[str, tuple[float, float]]]:
    """Start-up seconds, and wall and CPU seconds (of this process) per scenario for each
    workload, of subject ``spec``."""
    subject = load_subject(spec)
    started = time.perf_counter()
    subject.start()
    startup = time.perf_counter() - started
    per: dict[str, tuple[float, float]] = {}
    try:
        for name, work in workloads.items():
            wall, cpu = timed(repeats, lambda w=work: run_round(subject, w))  # type: ignore[misc]
            per[name] = (wall / len(work), cpu / len(work))
    finally:
        subject.close()
    return startup, per


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--long-messages", type=int, default=400)
    parser.add_argument("--canned", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--echo", metavar="SIZES", help=argparse.SUPPRESS)
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--small", action="store_true", help="a quick smoke (CI)")
    args = parser.parse_args()
    if args.small:
        args.repeats = 1
    if args.canned:
        serve_canned(args.canned, full=args.full)
        return
    if args.echo:
        sizes, reply_size = args.echo.split(":")
        serve_echo([int(n) for n in sizes.split(",")], int(reply_size))
        return

    fixtures = corpus()
    base = next(s for s in fixtures if s.action == "fork" and s.snapshot)
    long = long_fork(base, args.long_messages)
    dialects = list(all_dialects())
    workloads = {
        "fixtures": [(s, d) for s in fixtures for d in dialects],
        f"long-{len(long.history)}": [(long, d) for d in dialects],
    }
    print(
        f"fixtures: {len(fixtures)} one-shot scenarios x {len(dialects)} dialects; "
        f"long-{len(long.history)}: one fork after {len(long.history)} messages x "
        f"{len(dialects)} dialects; best of {args.repeats}"
    )
    replies = canned_replies(workloads)
    with tempfile.NamedTemporaryFile(suffix=".json") as canned:
        canned.write(replies)
        canned.flush()
        subjects = {
            "reference": "reference",
            "canned": f"cmd:{sys.executable} {__file__} --canned {canned.name}",
            "canned-full": f"cmd:{sys.executable} {__file__} --canned {canned.name} --full",
            "python": f"cmd:{sys.executable} {ROOT / 'examples/python-subject/subject.py'}",
        }
        if args.small:
            del subjects["python"]
        elif shutil.which("node"):
            subjects["node"] = f"cmd:node {ROOT / 'examples/node-subject/subject.js'}"
        print(
            f"\n{'subject':>11} {'workload':>10} {'start ms':>9} {'scen/s':>8} {'ms/scen':>8} "
            f"{'cpu ms':>8}"
        )
        results: dict[str, dict[str, float]] = {}
        cpus: dict[str, dict[str, float]] = {}
        for name, spec in subjects.items():
            startup, per = measure(spec, workloads, args.repeats)
            results[name] = {workload: wall for workload, (wall, _) in per.items()}
            cpus[name] = {workload: cpu for workload, (_, cpu) in per.items()}
            for workload, (seconds, cpu) in per.items():
                print(
                    f"{name:>11} {workload:>10} {startup * 1e3:9.1f} {1 / seconds:8.0f} "
                    f"{seconds * 1e3:8.3f} {cpu * 1e3:8.3f}"
                )
        print("cpu ms = the harness's own process only (a cmd: subject's CPU is not in it)")
    print(f"\n{'workload':>10} {'protocol':>9} {'python-in':>9} {'reading':>9}   ms per scenario")
    for workload, work in workloads.items():
        protocol = results["canned"][workload] * 1e3
        python_in = results.get("python", results["reference"])[workload]
        python = (python_in - results["reference"][workload]) * 1e3
        jsons = [scenario_to_json(s) for s, _ in work]
        reading = best_of(args.repeats, lambda j=jsons: [scenario_from_json(x) for x in j])  # type: ignore[misc]
        verdict = "ok" if protocol < TARGET_MS else "over"
        print(
            f"{workload:>10} {protocol:9.3f} {python:9.3f} {reading / len(work) * 1e3:9.3f}"
            f"   protocol target < {TARGET_MS:g} ms: {verdict}"
        )
    print(
        "protocol = the canned subject's round trip; python-in = the python example minus the "
        "reference in process;\nreading = scenario_from_json in process (schema check "
        "included), which the python example pays on top of the protocol"
    )
    long_name = f"long-{len(long.history)}"
    subject = subject_floor(workloads[long_name], replies, args.repeats)
    decoding = harness_floor(workloads[long_name], replies, args.repeats)
    print_long_fork(
        len(long.history),
        (results["canned"][long_name], results["canned-full"][long_name]),
        cpus["canned"][long_name],
        subject,
        decoding,
        best_of(max(5, args.repeats), lambda: orjson.dumps(scenario_to_json(long))),
        len(dialects),
    )
    sizes = line_sizes(workloads[long_name], replies)
    print_transport(sizes, transport_floor(*sizes, args.repeats), (sum(subject), decoding))


def line_sizes(work: Work, replies: bytes) -> tuple[list[int], int]:
    """The bytes of each request line of ``work`` (``request_lines``) and of its longest
    reply line."""
    canned = orjson.loads(replies)
    longest = max(len(encode_line({"seq": 1, **canned[f"{s.id}/{d}"]})) for s, d in work)
    return [len(line) for line in request_lines(work)], longest


_REST = "pipes, waking each side, the subject's own loop"


def print_long_fork(
    messages: int,
    round_trips: tuple[float, float],
    harness: float,
    floor: tuple[float, float],
    decoding: float,
    encoding: float,
    dialects: int,
) -> None:
    """The long fork's round trip (``canned``'s, then ``canned-full``'s: ``round_trips``),
    the first split into the harness's CPU (of which ``decoding``, its reading of the reply
    line, is the part no change to its pipes moves), the subject's floor and the rest, with
    its ratio to the target (figures in seconds per scenario run); then the encoding of the
    scenario, which the harness does once for all ``dialects`` runs of it."""
    round_trip, full = round_trips
    reading, writing = floor
    subject = reading + writing
    rest = round_trip - harness - subject
    ms = 1e3
    print(
        f"\nthe {messages}-message fork, one round trip over the protocol per dialect run "
        "(canned subject: the scenario sent once for its runs in every dialect, same-scenario):"
    )
    rows = [
        ("round trip (wall)", round_trip, ""),
        ("harness CPU", harness, "process_time of the harness around the round trips"),
        ("of which decoding", decoding, "its orjson.loads of the reply and checks, in process"),
        (
            "subject floor",
            subject,
            f"its orjson.loads of the request {reading * ms:.3f} ms "
            f"+ encoding its reply {writing * ms:.3f} ms, in process",
        ),
        ("rest", rest, _REST if rest >= 0 else f"{_REST}; below 0: the parts overlap"),
    ]
    for label, seconds, note in rows:
        print(f"  {label:>18} {seconds * ms:7.3f} ms   {note}".rstrip())
    ratio = round_trip * ms / LONG_TARGET_MS
    beyond = (round_trip - subject) * ms
    print(
        f"  target <= {LONG_TARGET_MS:g} ms: ratio {ratio:.2f} "
        f"({'ok' if ratio <= 1 else 'over'}); beyond the subject's floor: {beyond:.3f} ms "
        f"(ratio {beyond / LONG_TARGET_MS:.2f}); beyond it and the decoding: "
        f"{beyond - decoding * ms:.3f} ms"
    )
    print(
        f"  without same-scenario (canned-full, the scenario in every request): {full * ms:.3f} "
        f"ms, ratio {full * ms / LONG_TARGET_MS:.2f} of the target"
    )
    print(
        f"  encoding the scenario: {encoding * ms:.3f} ms, in each full request (once for its "
        f"{dialects} dialect runs with same-scenario; in each of them without)"
    )


def print_transport(
    sizes: tuple[list[int], int], transport: float, floors: tuple[float, float]
) -> None:
    """The transport's floor for round trips of ``sizes`` bytes, and the sum of it, the
    subject's and the harness's floors (``floors``), against the target."""
    subject, decoding = floors
    least = transport + subject + decoding
    requests, reply = sizes
    there = " then ".join(dict.fromkeys(str(n) for n in requests))
    ms = 1e3
    print(
        f"  the transport alone: {transport * ms:.3f} ms for {there} bytes there and "
        f"{reply} back (raw bytes, no JSON, through the same pipes; per dialect run)"
    )
    print(
        f"  the floors together: {least * ms:.3f} ms = transport {transport * ms:.3f} + subject "
        f"{subject * ms:.3f} + harness decoding {decoding * ms:.3f}; target <= "
        f"{LONG_TARGET_MS:g} ms: ratio {least * ms / LONG_TARGET_MS:.2f} of the target for the "
        "floors alone"
    )


if __name__ == "__main__":
    main()
