"""The pytest plugin, each feature run in a pytester project of its own.

Plugin autoloading is off in those runs, so they load exactly ``-p harness.pytest_plugin``
(and ``-p syrupy`` for snapshots) whether or not the entry point is installed.
"""

import json
import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from harness._bodies import BodyError
from harness.check import bundled_fixtures
from harness.dialects import get_dialect
from harness.pytest_plugin import (
    HeadsSnapshotExtension,
    assert_conforms,
    assert_prefix_preserved,
)
from harness.scenarios import load_fixtures
from harness.subjects import Outcome, ReferenceSubject
from tests.rules.bad_subjects import CASES
from tests.suite import pid_subject

ROOT = Path(__file__).resolve().parents[1]

pytest_plugins = ["pytester"]

Run = Callable[..., pytest.RunResult]

FAKE_SUBJECT = """
from harness.subjects import ReferenceSubject

def make():
    return ReferenceSubject(name="fake")

def not_a_subject():
    return 42

class OpenAIOnly(ReferenceSubject):
    @property
    def dialects(self):
        return ("openai",)

def openai_only():
    return OpenAIOnly(name="openai-only")
"""


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # for a subject process: harness importable
    monkeypatch.setenv("PREFIX_PID_LOG", str(pytester.path / "pids.log"))
    pytester.syspathinsert()

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest("-p", "harness.pytest_plugin", *args)

    return run


def test_the_subject_option_loads_a_python_factory(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(fake_subject=FAKE_SUBJECT)
    pytester.makepyfile(
        """
        def test_subject(prefix_subject):
            assert prefix_subject.name == "fake"
        """
    )
    run("--prefix-subject", "python:fake_subject:make").assert_outcomes(passed=1)


def test_the_subject_option_runs_a_protocol_subject(pytester: pytest.Pytester, run: Run) -> None:
    script = Path(__file__).parents[1] / "examples" / "node-subject" / "subject.js"
    pytester.makepyfile(
        """
        def test_subject(prefix_subject):
            assert prefix_subject.name == "node-example"
            assert prefix_subject.lifecycles == ("one-shot",)
        """
    )
    run("--prefix-subject", f"cmd:node {script}").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("nonsense", "--prefix-subject 'nonsense': unknown subject 'nonsense'; use reference, "),
        ("python:fake_subject", "write python:package.module:factory"),
        ("python:no_such_module:make", "no module named 'no_such_module'"),
        ("python:fake_subject:missing", "'missing'"),
        ("python:fake_subject:not_a_subject", "not a Subject"),
        ("cmd:definitely-not-a-program-here", "definitely-not-a-program-here"),
    ],
)
def test_a_bad_subject_fails_the_tests_that_use_it(
    pytester: pytest.Pytester, run: Run, value: str, error: str
) -> None:
    pytester.makepyfile(fake_subject=FAKE_SUBJECT)
    pytester.makepyfile(
        """
        def test_nothing(): pass
        def test_one(prefix_subject): pass
        def test_two(prefix_subject): pass
        """
    )
    result = run("--prefix-subject", value)
    result.assert_outcomes(passed=1, errors=2)
    shown = [line for line in result.outlines if line.startswith("--prefix-subject")]
    assert len(shown) == 2
    assert all(error in line for line in shown), shown
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize("flag", ["--help", "--co", "--markers"])
def test_help_and_collection_start_no_subject(
    pytester: pytest.Pytester, run: Run, flag: str
) -> None:
    pytester.makepyfile("def test_uses(prefix_subject, prefix_dialect): pass")
    assert run(flag, "--prefix-subject", pid_subject.spec()).ret == pytest.ExitCode.OK
    assert run(flag, "--prefix-subject", "nonsense").ret == pytest.ExitCode.OK
    assert pid_subject.started(pytester.path / "pids.log") == []


def test_the_subject_starts_at_its_first_use_once(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        """
        def test_before(): pass
        def test_one(prefix_subject): assert prefix_subject.name == "pid-logger"
        def test_two(prefix_subject, prefix_dialect): pass
        """
    )
    log = pytester.path / "pids.log"
    run("--prefix-subject", pid_subject.spec()).assert_outcomes(passed=6)
    (pid,) = pid_subject.started(log)
    with pytest.raises(ProcessLookupError):  # closed at the session's end
        os.kill(int(pid), 0)
    log.unlink()
    run("--prefix-subject", pid_subject.spec(), "-k", "before").assert_outcomes(passed=1)
    assert pid_subject.started(log) == []


def test_the_ini_option_names_the_subject(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(fake_subject=FAKE_SUBJECT)
    pytester.makeini("[pytest]\nprefix_subject = python:fake_subject:make\n")
    pytester.makepyfile(
        """
        import os

        def test_subject(prefix_subject):
            assert prefix_subject.name == os.environ["EXPECTED_SUBJECT"]
        """
    )
    monkeypatch.setenv("EXPECTED_SUBJECT", "fake")
    run().assert_outcomes(passed=1)
    monkeypatch.setenv("EXPECTED_SUBJECT", "reference")  # the command line wins
    run("--prefix-subject", "reference").assert_outcomes(passed=1)


def test_the_report_header_names_subject_and_dialects(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = run("--prefix-subject", pid_subject.spec(), "--prefix-dialect", "openai")
    result.stdout.fnmatch_lines(
        [f"prefix-harness: subject {pid_subject.spec()} (started at first use), dialects openai"]
    )
    assert pid_subject.started(pytester.path / "pids.log") == []


def test_the_dialect_option_chooses_the_dialects(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile("def test_dialect(prefix_dialect): pass")
    result = run("-v", "--prefix-dialect", "gemini", "--prefix-dialect", "openai")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_dialect[[]gemini[]] PASSED*", "*[[]openai[]] PASSED*"])
    result = run("--prefix-dialect", "klingon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --prefix-dialect: invalid choice: 'klingon'*"])


def test_a_dialect_the_subject_does_not_speak_is_skipped(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(fake_subject=FAKE_SUBJECT)
    pytester.makepyfile("def test_dialect(prefix_dialect): assert prefix_dialect == 'openai'")
    result = run("-rs", "--prefix-subject", "python:fake_subject:openai_only")
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines(["*the subject openai-only does not speak gemini*"])


def test_given_tests_may_take_prefix_dialect(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        """
        from hypothesis import given, settings, strategies as st

        @settings(max_examples=5, database=None)
        @given(st.integers())
        def test_given(prefix_subject, prefix_dialect, n):
            assert prefix_dialect in prefix_subject.dialects
        """
    )
    # the Hypothesis plugin is what refuses a function-scoped fixture
    run("-p", "hypothesis.extra.pytestplugin").assert_outcomes(passed=4)


@pytest.mark.parametrize(
    ("flag", "value", "error"),
    [
        ("--prefix-timeout", "0", "argument --prefix-timeout: 0 must be more than 0*"),
        ("--prefix-timeout", "soon", "*'soon' is not a number of seconds"),
        ("--prefix-examples", "-1", "argument --prefix-examples: -1 is less than 0"),
        ("--prefix-seed", "x", "argument --prefix-seed: invalid int value: 'x'"),
    ],
)
def test_a_bad_option_value_is_a_usage_error(
    pytester: pytest.Pytester, run: Run, flag: str, value: str, error: str
) -> None:
    result = run(flag, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{error}"])


def test_the_timeout_option_bounds_a_protocol_subject(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        """
        def test_timeout(prefix_subject):
            assert prefix_subject.options.timeout == 2.5
        """
    )
    run("--prefix-subject", pid_subject.spec(), "--prefix-timeout", "2.5").assert_outcomes(passed=1)


def test_the_subject_fixture_defaults_to_the_reference(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        """
        def test_subject(prefix_subject):
            assert prefix_subject.name == "reference"
            assert prefix_subject.lifecycles == ("one-shot", "continuable", "spawn")
        """
    )
    run().assert_outcomes(passed=1)


def test_a_test_taking_prefix_dialect_runs_once_per_dialect(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        """
        def test_dialect(prefix_subject, prefix_dialect):
            assert prefix_dialect in prefix_subject.dialects
        """
    )
    result = run("-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*test_dialect[[]anthropic[]] PASSED*", "*[[]openai[]] PASSED*"])


HELPER_TEST = """
import orjson
from harness.dialects import get_dialect
from harness.pytest_plugin import assert_prefix_preserved

PARENT = {"model": "m", "messages": [{"role": "system", "content": "You are Quill."},
                                     {"role": "user", "content": "hello"}]}
FORK = {"model": "m", "messages": [{"role": "system", "content": "You are Quill. Today is Monday."},
                                   {"role": "user", "content": "hello"}]}

def test_kept():
    extended = {**PARENT, "messages": [*PARENT["messages"], {"role": "user", "content": "more"}]}
    comparison = assert_prefix_preserved(orjson.dumps(PARENT), orjson.dumps(extended))
    assert comparison.preserved and comparison.dialect == "openai"

def test_parsed_bodies_and_explicit_dialect():
    openai = get_dialect("openai")
    assert_prefix_preserved(openai.parse(PARENT), orjson.dumps(PARENT), dialect="openai")

def test_broken():
    assert_prefix_preserved(orjson.dumps(PARENT), orjson.dumps(FORK))
"""


def test_the_assertion_helper_fails_with_the_divergence_report(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(HELPER_TEST)
    result = run()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_broken*",
            "E * dialect: openai*",
            "E * PREFIX BROKEN at byte *",
            "E * path     messages[[]0[]].content",
            "E * why      text differs from byte 14 of the string on",
        ]
    )
    assert "pytest_plugin.py" not in result.stdout.str(), "the helper hides its own frame"


def test_the_conformance_marker_is_registered(pytester: pytest.Pytester, run: Run) -> None:
    result = run("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.prefix_conformance: a conformance test of *"])
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.prefix_conformance
        def test_marked():
            pass
        """
    )
    run("--strict-markers", "-m", "prefix_conformance").assert_outcomes(passed=1)


SNAPSHOT_TEST = """
from harness._bodies import BodyError
from harness.dialects import get_dialect
from harness.pytest_plugin import HeadsSnapshotExtension, assert_prefix_preserved
from harness.subjects import Outcome

BODY = b'{"model":"m","messages":[{"role":"user","content":"h\\\\u00e9"}],"tools":[]}'

def test_heads(snapshot):
    outcome = Outcome("assembled", parent=BODY, children=(BODY, BODY))
    assert snapshot.use_extension(HeadsSnapshotExtension)(name="openai/demo") == outcome
"""


@pytest.fixture
def snapshots(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., pytest.RunResult]:
    """Runs in a subprocess: syrupy keeps its session in a module global, which an inline
    run would leave pointing at the inner session. The inner run is no xdist worker, even
    when this one is: syrupy leaves the unused-snapshot report to xdist's controller."""
    for name in [n for n in os.environ if n.startswith("PYTEST_XDIST")]:
        monkeypatch.delenv(name)
    pytester.makepyfile(SNAPSHOT_TEST)

    def run_syrupy(*args: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess("-p", "syrupy", "-p", "harness.pytest_plugin", *args)

    return run_syrupy


def test_heads_snapshots_are_written_to_the_top_level_folder(
    pytester: pytest.Pytester, snapshots: Callable[..., pytest.RunResult]
) -> None:
    # -W error: writing raises no warning about names unlike the test's (they are on purpose)
    snapshots("--snapshot-update", "-W", "error").assert_outcomes(passed=1)
    written = pytester.path / "snapshots" / "openai" / "demo.json"
    body = {"model": "m", "messages": [{"role": "user", "content": "hé"}], "tools": []}
    heads = {
        "status": "assembled",
        "message": None,
        "parent": body,
        "children": [body, body],
        "follow_ups": [],
        "parent_next": None,
    }
    assert written.read_bytes() == orjson.dumps(
        heads, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    )
    assert "hé" in written.read_text(encoding="utf-8")
    assert not (pytester.path / "__snapshots__").exists()
    snapshots().assert_outcomes(passed=1)


def test_a_changed_body_fails_with_a_line_diff(
    pytester: pytest.Pytester, snapshots: Callable[..., pytest.RunResult]
) -> None:
    snapshots("--snapshot-update")
    written = pytester.path / "snapshots" / "openai" / "demo.json"
    written.write_text(written.read_text().replace('"tools"', '"tool_choice"', 1))
    result = snapshots()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*-*"tool_choice": []*', '*+*"tools": []*'])


def test_unused_and_missing_snapshots_fail_the_run(
    pytester: pytest.Pytester, snapshots: Callable[..., pytest.RunResult]
) -> None:
    snapshots("--snapshot-update")
    folder: Path = pytester.path / "snapshots"
    (folder / "gemini").mkdir()
    (folder / "gemini" / "gone.json").write_text("{}\n")
    result = snapshots()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*1 snapshot unused*"])
    snapshots("--snapshot-update").stdout.fnmatch_lines(["*Deleted gemini/gone*"])
    assert not (folder / "gemini" / "gone.json").exists()
    (folder / "openai" / "demo.json").unlink()
    result = snapshots()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*Snapshot 'openai/demo' does not exist*"])


@pytest.mark.parametrize("name", [0, "demo", "openai/", "a/b/c", "../demo", "openai/.."])
def test_heads_snapshots_need_a_dialect_and_scenario_name(name: object) -> None:
    with pytest.raises(ValueError, match="needs name='<dialect>/<scenario-id>'"):
        HeadsSnapshotExtension.get_snapshot_name(test_location=None, index=name)  # type: ignore[arg-type]


def test_heads_snapshots_pin_outcomes_only() -> None:
    with pytest.raises(TypeError, match="pins an Outcome, not a dict"):
        HeadsSnapshotExtension().serialize({"parent": None})


def test_the_helper_refuses_bodies_it_cannot_compare() -> None:
    body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
    openai, anthropic = get_dialect("openai"), get_dialect("anthropic")
    parsed = openai.parse(orjson.loads(body))
    with pytest.raises(ValueError, match="parsed in different dialects"):
        assert_prefix_preserved(parsed, anthropic.parse(orjson.loads(body)))
    with pytest.raises(ValueError, match="the parent was parsed as openai, not anthropic"):
        assert_prefix_preserved(parsed, body, dialect="anthropic")
    with pytest.raises(BodyError, match=r"^fork: ends in the middle of the JSON"):
        assert_prefix_preserved(body, body[:-3])
    with pytest.raises(BodyError, match=r"^parent: is not a valid OpenAI chat completions"):
        assert_prefix_preserved("[1]", body, dialect="openai")


EXAMPLES = Path(__file__).parents[1] / "examples" / "openai"


@pytest.mark.parametrize(
    "form",
    [
        lambda p: p.read_bytes(),
        lambda p: bytearray(p.read_bytes()),
        lambda p: p.read_text(encoding="utf-8"),
        lambda p: json.loads(p.read_text(encoding="utf-8")),
        lambda p: p,
    ],
    ids=["bytes", "bytearray", "str", "dict", "path"],
)
def test_the_helper_takes_a_body_in_each_of_its_forms(form: Callable[[Path], object]) -> None:
    parent, fork, broken = (EXAMPLES / f"{n}.json" for n in ("parent", "fork", "fork-broken"))
    kept = assert_prefix_preserved(form(parent), form(fork))  # type: ignore[arg-type]
    assert kept.preserved
    with pytest.raises(AssertionError) as raised:
        assert_prefix_preserved(form(parent), form(broken))  # type: ignore[arg-type]
    assert str(raised.value).startswith("dialect: openai\n")
    assert "PREFIX BROKEN at byte 621: 105 cached tokens lost" in str(raised.value)


def test_a_guessed_dialect_is_chosen_by_the_helpers_own_argument() -> None:
    """Bodies that more than one dialect reads: the report names ``dialect=``, the
    helper's argument, not the command's option."""
    parent = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(AssertionError) as raised:
        assert_prefix_preserved(parent, {"model": "m", "messages": []})
    first = str(raised.value).splitlines()[0]
    assert first.endswith(" (guessed: pass dialect= to choose)"), first
    with pytest.raises(AssertionError) as chosen:
        assert_prefix_preserved(parent, {"model": "m", "messages": []}, dialect="openai")
    assert str(chosen.value).splitlines()[0] == "dialect: openai"


@pytest.mark.parametrize("body", [42, None, ["a"], 1.5])
def test_the_helper_says_which_forms_it_takes(body: object) -> None:
    valid = (EXAMPLES / "parent.json").read_bytes()
    with pytest.raises(TypeError) as raised:
        assert_prefix_preserved(body, valid)  # type: ignore[arg-type]
    assert str(raised.value) == (
        "assert_prefix_preserved: the parent must be a request body: bytes as POSTed, str (its"
        " JSON text), a dict (its decoded JSON), a pathlib.Path of a file holding it — not "
        f"{type(body).__name__}"
    )


FORK = next(s for s in load_fixtures(bundled_fixtures()) if s.id == "fork-ends-model-calls")


def test_assert_conforms_returns_the_report_of_a_conforming_outcome() -> None:
    outcome = ReferenceSubject().assemble(FORK, "gemini")
    report = assert_conforms(FORK, outcome)
    assert report.dialect == "gemini"
    assert not report.failed
    assert assert_conforms(FORK, outcome, dialect="gemini", subject="mine").subject == "mine"


def test_assert_conforms_fails_with_the_report() -> None:
    outcome = CASES["tool-order"].subject.assemble(FORK, "openai")
    with pytest.raises(AssertionError) as raised:
        assert_conforms(FORK, outcome, subject="tool-order")
    text = str(raised.value)
    assert text.startswith("✗ tools-identical: children[0]: tool `run_tests` moved from 2")
    assert "\n    in     tool-order · openai · fork-ends-model-calls · children[0]" in text
    assert re.search(r"\n    where  byte 48, tools\[0\], path tools\[0\]\.function\.name", text)


def test_assert_conforms_takes_bodies_as_text_or_dicts_and_refuses_the_rest() -> None:
    outcome = CASES["tool-order"].subject.assemble(FORK, "openai")
    assert outcome.parent is not None
    as_text = replace(
        outcome,
        parent=outcome.parent.decode(),
        children=tuple(orjson.loads(c) for c in outcome.children),
    )
    with pytest.raises(AssertionError, match=r"^✗ tools-identical: "):
        assert_conforms(FORK, as_text)  # type: ignore[arg-type]
    good = ReferenceSubject().assemble(FORK, "openai")
    assert good.parent is not None
    dicts = replace(good, parent=orjson.loads(good.parent))
    assert not assert_conforms(FORK, dicts).failed  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="the outcome's parent must be a request body"):
        assert_conforms(FORK, replace(good, parent=3))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"outcome must be a harness\.Outcome"):
        assert_conforms(FORK, {"parent": good.parent})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"scenario must be a harness\.Scenario"):
        assert_conforms({"id": "x"}, good)  # type: ignore[arg-type]


def test_assert_conforms_needs_a_dialect_for_an_outcome_without_bodies() -> None:
    rejected = Outcome("rejected", message="no")
    with pytest.raises(ValueError, match="no body to tell its dialect by: give dialect="):
        assert_conforms(FORK, rejected)
    with pytest.raises(AssertionError, match="subject-error"):
        assert_conforms(FORK, Outcome("errored", message="boom"), dialect="openai")
