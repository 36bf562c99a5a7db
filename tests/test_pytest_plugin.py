"""The pytest plugin, each feature run in a pytester project of its own.

Plugin autoloading is off in those runs, so they load exactly ``-p harness.pytest_plugin``
(and ``-p syrupy`` for snapshots) whether or not the entry point is installed.
"""

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from harness._bodies import BodyError
from harness.dialects import get_dialect
from harness.pytest_plugin import HeadsSnapshotExtension, assert_prefix_preserved

pytest_plugins = ["pytester"]

Run = Callable[..., pytest.RunResult]

FAKE_SUBJECT = """
from harness.subjects import ReferenceSubject

def make():
    return ReferenceSubject(name="fake")

def not_a_subject():
    return 42
"""


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
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
def test_a_bad_subject_is_a_usage_error(
    pytester: pytest.Pytester, run: Run, value: str, error: str
) -> None:
    pytester.makepyfile(fake_subject=FAKE_SUBJECT)
    pytester.makepyfile("def test_nothing(): pass")
    result = run("--prefix-subject", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert any(line.startswith("ERROR: ") and error in line for line in result.errlines)


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
def snapshots(pytester: pytest.Pytester, run: Run) -> Callable[..., pytest.RunResult]:
    """Runs in a subprocess: syrupy keeps its session in a module global, which an inline
    run would leave pointing at the inner session."""
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
