"""The conformance suite as pytest items, each option run in a pytester project of its own.

Plugin autoloading is off in those runs: they load exactly ``-p harness.pytest_plugin``.
"""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.check import bundled_fixtures
from harness.cli import run as cli
from harness.dialects import all_dialects
from harness.scenarios import load_fixtures
from tests.suite import pid_subject

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
Run = Callable[..., pytest.RunResult]
CORPUS = len(load_fixtures(bundled_fixtures()))
ONESHOT = [s.id for s in load_fixtures(bundled_fixtures() / "oneshot.json")]
TOOL_ORDER = "python:tests.cli.check_subjects:tool_order"
ITEM = "harness.suite::oneshot.json::fork-ends-model-calls[openai]"
GLOB = re.sub(r"[][]", lambda m: f"[{m.group()}]", ITEM)  # for fnmatch_lines


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # for subject processes and -n workers
    monkeypatch.setenv("PREFIX_PID_LOG", str(pytester.path / "pids.log"))
    monkeypatch.syspath_prepend(str(ROOT))  # tests.cli.check_subjects, from the project

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest(
            "-p", "harness.pytest_plugin", "--pyargs", "harness.suite", "--prefix-examples", "2",
            *args,
        )  # fmt: skip

    return run


def _ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("harness.suite::")]


def test_one_item_per_scenario_and_dialect_with_stable_ids(suite: Run) -> None:
    ids = _ids(suite("--co", "-q"))
    assert len(ids) == (CORPUS + 2) * 4
    assert ITEM in ids
    assert "harness.suite::spawn.json::spawn-delegation-prompt[openai-responses]" in ids
    generated = [i for i in ids if i.startswith("harness.suite::generated::")]
    assert len(generated) == 8
    assert re.fullmatch(r"harness\.suite::generated::00-[\w-]+\[anthropic\]", generated[0])
    assert _ids(suite("--co", "-q")) == ids, "the same ids on every run"


def test_the_seed_option_varies_the_generated_items(suite: Run) -> None:
    default = _ids(suite("--co", "-q", "--prefix-examples", "6"))
    seeded = _ids(suite("--co", "-q", "--prefix-examples", "6", "--prefix-seed", "7"))
    assert _ids(suite("--co", "-q", "--prefix-examples", "6", "--prefix-seed", "7")) == seeded
    assert [i for i in seeded if "generated" in i] != [i for i in default if "generated" in i]
    assert [i for i in seeded if "generated" not in i] == [
        i for i in default if "generated" not in i
    ]


def test_the_examples_option_sets_how_many_are_generated(suite: Run) -> None:
    assert len(_ids(suite("--co", "-q", "--prefix-examples", "0"))) == CORPUS * 4


def test_the_dialect_option_chooses_the_items_dialects(suite: Run) -> None:
    ids = _ids(suite("--co", "-q", "--prefix-dialect", "gemini"))
    assert len(ids) == CORPUS + 2
    assert all(i.endswith("[gemini]") for i in ids)


def test_the_fixtures_option_replaces_the_corpus(suite: Run, pytester: pytest.Pytester) -> None:
    corpus = pytester.mkdir("corpus")
    (corpus / "mine.json").write_bytes((bundled_fixtures() / "spawn.json").read_bytes())
    ids = _ids(suite("--co", "-q", "--prefix-fixtures", str(corpus), "--prefix-examples", "0"))
    assert ids == [
        f"harness.suite::mine.json::{s}[{d}]"
        for s in ("spawn-delegation-prompt", "spawn-after-inline-search")
        for d in all_dialects()
    ]
    (corpus / "broken.json").write_text("{", encoding="utf-8")
    result = suite("--co", "--prefix-fixtures", str(corpus))
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*--prefix-fixtures: *broken.json*"])


def test_keywords_select_items(suite: Run) -> None:
    result = suite("-k", "fork-ends-model-calls and openai and not responses", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*{GLOB} PASSED*"])


@pytest.mark.parametrize(
    ("expression", "count"),
    [
        ("family_oneshot", len(ONESHOT) * 4),
        ("family_oneshot and dialect_openai_responses", len(ONESHOT)),
        ("family_generated", 8),
        ("lifecycle_spawn and family_spawn", 2 * 4),
        ("prefix_conformance", (CORPUS + 2) * 4),
    ],
)
def test_markers_select_items(suite: Run, expression: str, count: int) -> None:
    assert len(_ids(suite("--co", "-q", "--strict-markers", "-m", expression))) == count


def test_a_failing_item_shows_what_check_prints(
    suite: Run, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    result = suite(
        "--prefix-subject", TOOL_ORDER, "--prefix-dialect", "openai", "-m", "family_oneshot"
    )
    shown = result.stdout.str()
    assert f"FAILED {ITEM}" in shown
    result.assert_outcomes(failed=len(ONESHOT) - 1, passed=1)  # fork-provider-items has no tools
    monkeypatch.chdir(ROOT)
    check = "check --examples 0 --dialect openai --no-progress --fixtures"
    cli([*shlex.split(check), str(bundled_fixtures() / "oneshot.json"), "--subject", TOOL_ORDER])
    printed = capsys.readouterr().out
    start = "✗ openai · fork-ends-model-calls · tools-identical:"
    block = shown[
        shown.index(start) : shown.index("✗ openai · fork-ends-model-calls · byte-prefix")
    ]
    assert block.count("\n") > 5
    assert block in printed, "the item shows the lines check prints for the failure"
    assert "verdict: NOT conforming" in shown
    assert "Traceback" not in shown


NODE = f"cmd:node {ROOT / 'examples' / 'node-subject' / 'subject.js'}"


def test_a_subject_that_lacks_a_lifecycle_skips_its_items(suite: Run) -> None:
    result = suite("--prefix-subject", NODE, "-m", "family_spawn or family_oneshot", "-rs")
    result.assert_outcomes(skipped=2 * 4, passed=len(ONESHOT) * 4)
    result.stdout.fnmatch_lines(["*the subject node-example has no spawn lifecycle*"])
    assert result.ret == pytest.ExitCode.OK


def test_a_run_that_checked_no_item_is_inconclusive_not_0(suite: Run) -> None:
    result = suite("--prefix-subject", NODE, "-m", "family_spawn")
    result.assert_outcomes(skipped=2 * 4)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        ["prefix-harness: INCONCLUSIVE, none of the 8 harness.suite items was checked*"]
    )


EXPECT = """
[[known-failure]]
scenario = "fork-ends-model-calls"
rule = "tools-identical"
dialect = "openai"
reason = "tools sorted by name: https://example.org/issues/1"

[[known-failure]]
scenario = "fork-ends-model-calls"
rule = "byte-prefix"
reason = "follows from the tool order"
"""


def test_known_failures_are_strict_xfail_items_with_the_reason(
    suite: Run, pytester: pytest.Pytester
) -> None:
    pytester.makefile(".toml", expect=EXPECT)
    args = ("--prefix-subject", TOOL_ORDER, "--prefix-expect", "expect.toml", "-rfxX")
    result = suite(*args, "-k", "fork-ends-model-calls and openai and not responses")
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines([f"XFAIL {GLOB} - *tools sorted by name: https://example.org/*"])
    result = suite(*args[2:], "-k", "fork-ends-model-calls and openai and not responses")
    result.assert_outcomes(failed=1)  # the reference: a strict xfail that passed
    result.stdout.fnmatch_lines(
        ["UNEXPECTED PASSES (2): remove these from expect.toml", f"FAILED {GLOB}*"]
    )


def test_known_failures_of_one_subject_xfail_once_it_has_started(
    suite: Run, pytester: pytest.Pytester
) -> None:
    pytester.makefile(
        ".toml",
        expect=EXPECT.replace("[[known-failure]]\n", '[[known-failure]]\nsubject = "tool-order"\n'),
    )
    args = (
        "--prefix-expect",
        "expect.toml",
        "-rfxX",
        "-k",
        "fork-ends-model-calls and openai and not responses",
    )
    result = suite("--prefix-subject", TOOL_ORDER, *args)
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines([f"XFAIL {GLOB} - known failure (tools-identical: tools sorted*"])
    suite(*args).assert_outcomes(passed=1)  # the reference: the entries are not its own


def test_a_known_failure_of_another_rule_does_not_hide_a_failure(
    suite: Run, pytester: pytest.Pytester
) -> None:
    pytester.makefile(".toml", expect=EXPECT.split("\n\n[[known-failure]]\nscenario")[0])
    result = suite(
        "--prefix-subject", TOOL_ORDER, "--prefix-expect", "expect.toml",
        "-k", "fork-ends-model-calls and openai and not responses and not stale",
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["FAILURES (1)", "✗ openai · fork-ends-model-calls · byte-prefix:*"]
    )


def test_an_expectation_that_can_never_match_fails_the_stale_item(
    suite: Run, pytester: pytest.Pytester
) -> None:
    pytester.makefile(
        ".toml",
        expect='[[known-failure]]\nscenario = "gone"\nrule = "tools-identical"\nreason = "old"\n',
    )
    result = suite("--prefix-expect", "expect.toml", "-k", "stale")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*UNEXPECTED PASSES (1): remove these from expect.toml*", "*no scenario 'gone'*"]
    )
    pytester.makefile(".toml", expect="[[known-failure]]\nscenario = 1\n")
    result = suite("--prefix-expect", "expect.toml", "--co")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*--prefix-expect: expect.toml: known-failure[[]0[]]: *"])


def test_junit_xml_has_a_case_per_item_with_the_report(
    suite: Run, pytester: pytest.Pytester
) -> None:
    result = suite(
        "--prefix-subject", TOOL_ORDER, "--junitxml", "out.xml",
        "-k", "fork-ends-model-calls or fork-provider-items", "--prefix-dialect", "openai",
    )  # fmt: skip
    result.assert_outcomes(failed=1, passed=1)
    cases = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    by_name = {c.get("name"): c for c in cases}
    assert set(by_name) == {"fork-ends-model-calls[openai]", "fork-provider-items[openai]"}
    failing = by_name["fork-ends-model-calls[openai]"]
    assert failing.get("classname") == "harness.suite.oneshot.json"
    failure = failing.find("failure")
    assert failure is not None
    assert "✗ openai · fork-ends-model-calls · tools-identical:" in (failure.text or "")
    assert by_name["fork-provider-items[openai]"].find("failure") is None
    pytester.makefile(".toml", expect=EXPECT)
    suite(
        "--prefix-subject", TOOL_ORDER, "--junitxml", "out.xml", "--prefix-expect", "expect.toml",
        "-k", "fork-ends-model-calls", "--prefix-dialect", "openai",
    )  # fmt: skip
    cases = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    (known,) = [c for c in cases if c.get("name") == "fork-ends-model-calls[openai]"]
    skipped = known.find("skipped")
    assert skipped is not None
    assert skipped.get("type") == "pytest.xfail"
    assert "tools sorted by name" in (skipped.get("message") or "")


def test_a_bad_subject_fails_the_items_and_collection_starts_nothing(suite: Run) -> None:
    assert suite("--co", "--prefix-subject", "nonsense").ret == pytest.ExitCode.OK
    result = suite("--prefix-subject", "nonsense", "-m", "family_spawn")
    result.assert_outcomes(failed=8)
    result.stdout.fnmatch_lines(["--prefix-subject 'nonsense': unknown subject 'nonsense'*"])


def test_under_xdist_each_worker_starts_one_subject(suite: Run, pytester: pytest.Pytester) -> None:
    log = pytester.path / "pids.log"
    args = ("-p", "xdist", "-n", "2", "--prefix-subject", pid_subject.spec())
    result = pytester.runpytest_subprocess(
        "-p", "harness.pytest_plugin", "--pyargs", "harness.suite", "--prefix-examples", "2",
        "-m", "family_oneshot or family_generated", *args,
    )  # fmt: skip
    result.assert_outcomes(passed=(len(ONESHOT) + 2) * 4)
    pids = pid_subject.started(log)
    assert len(pids) == 2, "one subject per worker, none in the controller"
    assert len(set(pids)) == 2


def test_what_the_subject_writes_after_its_last_reply_fails_the_run(
    suite: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFIX_PID_LATE", "1")
    result = suite("--prefix-subject", pid_subject.spec(), "-k", "fork-ends-user")
    assert result.parseoutcomes()["passed"] == 4
    assert result.ret == pytest.ExitCode.TESTS_FAILED, "the items passed: the late line fails"
    result.stdout.fnmatch_lines(
        [
            "prefix-harness: SUBJECT FAILURES (1) when the subject was stopped:",
            "*before it exited, the subject wrote another line*",
        ]
    )
    monkeypatch.delenv("PREFIX_PID_LATE")
    assert suite("--prefix-subject", pid_subject.spec(), "-k", "fork-ends-user").ret == 0
