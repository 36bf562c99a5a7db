"""Start-up: each command imports only what it uses (harness/cli/_main.py builds the parser from
``argparse``-level modules; each command imports its machinery when it runs). Each case is a
real ``python -X importtime -m harness`` process, and the modules it loaded are read from the
import-time report on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from harness import capture, check, reports
from harness.cli import _capture, _check, _check_log

EXAMPLES = Path(__file__).parents[2] / "examples" / "openai"
PARENT, FORK, BROKEN = (str(EXAMPLES / n) for n in ("parent.json", "fork.json", "fork-broken.json"))

MACHINERY = (
    "hypothesis",
    "jsonschema",
    "harness.assemblers",
    "harness.capture",
    "harness.check",
    "harness.protocol",
    "harness.rules",
    "harness.scenarios",
    "harness.generation",
    "harness.strategies",
    "harness.subjects",
)
"""What no command loads before it runs: the generators, the schemas and the checkers."""

COMMANDS = ("diff", "check", "capture", "check-log", "rules")


def imported(*argv: str) -> tuple[int, set[str]]:
    """The exit code of ``prefix-harness ARGV`` and every module the process imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "harness", *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "harness.cli._main" in modules, done.stderr[-2000:]
    return done.returncode, modules


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """The modules of ``packages`` (each package and what is under it) among ``modules``."""
    return sorted(m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages))


@pytest.mark.parametrize("fork", [FORK, BROKEN])
def test_diff_loads_no_checker_generator_or_schema(fork: str) -> None:
    code, modules = imported("diff", PARENT, fork)
    assert code == (0 if fork == FORK else 1)
    assert "harness.prefix" in modules  # the report was built in this process
    assert loaded(modules, MACHINERY) == []


def test_diff_json_loads_no_checker_generator_or_schema() -> None:
    code, modules = imported("diff", "--json", PARENT, BROKEN)
    assert code == 1
    assert loaded(modules, MACHINERY) == []


@pytest.mark.parametrize("argv", [["--help"], *([c, "--help"] for c in COMMANDS)])
def test_help_loads_no_command_machinery(argv: list[str]) -> None:
    code, modules = imported(*argv)
    assert code == 0
    assert loaded(modules, (*MACHINERY, "harness.prefix", "deepdiff")) == []
    assert not any(
        m.startswith("harness.reports.") and m != "harness.reports._escape" for m in modules
    )


GENERATORS_AND_SCHEMAS = (
    "hypothesis",
    "harness.generation",
    "harness.strategies",
    "jsonschema",
    "referencing",
)
"""What only generating scenarios or validating JSON against a schema needs."""


@pytest.mark.parametrize("argv", [["rules"], ["rules", "byte-prefix"]])
def test_rules_loads_the_catalog_only_when_it_runs(argv: list[str]) -> None:
    code, modules = imported(*argv)
    assert code == 0
    assert "harness.rules" in modules
    assert loaded(modules, (*GENERATORS_AND_SCHEMAS, "harness.capture", "harness.check")) == []


def test_check_log_loads_no_generator_or_schema(tmp_path: Path) -> None:
    """``check-log`` judges recorded bodies: it reads known failures (``harness.check``'s
    ``_expect``) but neither draws scenarios nor validates any against a schema."""
    log = tmp_path / "requests.jsonl"
    bodies = (orjson.loads(Path(f).read_bytes()) for f in (PARENT, FORK))
    lines = (orjson.dumps({"path": "/v1/chat/completions", "body": b}) + b"\n" for b in bodies)
    log.write_bytes(b"".join(lines))
    code, modules = imported("check-log", str(log))
    assert code == 0
    assert "harness.capture" in modules  # the log was checked in this process
    assert "harness.check._expect" in modules
    assert loaded(modules, (*GENERATORS_AND_SCHEMAS, "harness.check._run")) == []


DEFERRED = (
    "deepdiff",  # a structural diff of plain JSON is made without it (and its numpy, pydantic)
    "numpy",
    "pydantic",
    "multiprocessing",  # only --jobs N starts workers
    "harness.reports._html",  # only --html writes a page
    "harness.reports._html_check",
    "harness.reports._html_page",
    "harness.reports._html_timeline",
    "harness.reports._markdown",  # only --summary-md writes a summary
    "harness.reports._rules_junit",  # only --junit-xml writes XML
    "xml.etree",
)
"""What the default ``check`` (the reference, with its accepted divergences' evidence) does
not load."""


def test_check_loads_what_it_uses_only() -> None:
    code, modules = imported("check", "--examples", "5", "--no-progress")
    assert code == 0
    assert "harness.check" in modules
    assert loaded(modules, DEFERRED) == []


def test_parser_defaults_match_the_library() -> None:
    """The defaults the parser shows are kept in the CLI so that building it loads nothing
    heavy: they must stay those of the library."""
    assert _check.MAX_HANGS == check.MAX_HANGS
    assert _check_log.DEFAULT_FORK_TAG == capture.DEFAULT_FORK_TAG
    assert _capture.DEFAULT_MAX_REQUEST_BYTES == capture.DEFAULT_MAX_REQUEST_BYTES


def test_every_report_name_is_loaded_on_first_use() -> None:
    """``harness.reports`` names its modules instead of importing them: each public name
    must be found in the module it is said to be in."""
    assert sorted(reports._MODULES) == sorted(reports.__all__)
    for name in reports.__all__:
        assert getattr(reports, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = reports.nothing  # type: ignore[attr-defined]


def test_importing_the_reports_loads_no_report() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys, harness.reports; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    modules = set(done.stdout.split())
    assert "harness.reports" in modules
    assert not any(m.startswith("harness.reports.") for m in modules)
