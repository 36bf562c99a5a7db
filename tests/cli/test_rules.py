import argparse

import pytest

from harness.cli import _rules
from harness.rules import catalog


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="prefix-harness")
    _rules.add_parser(parser.add_subparsers())
    args = parser.parse_args(["rules", *argv])
    code: int = args.run(args)
    return code


def test_the_catalog_is_listed_with_severities(capsys: pytest.CaptureFixture[str]) -> None:
    assert run() == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(catalog())
    assert [line.split()[0] for line in lines] == [r.id for r in catalog()]
    by_id = {line.split()[0]: line.split()[1] for line in lines}
    assert by_id["degraded-fallback"] == "note"
    assert by_id["call-args-kept"] == "warning"
    assert by_id["byte-prefix"] == "error"


def test_one_rule_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("cache-markers") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("cache-markers (error): cache markers at or after the end")
    assert lines[1] == "dialects:   anthropic"
    assert lines[2] == "lifecycles: one-shot, continuable"
    assert "Typical cause" in out
    assert max(len(line) for line in lines[4:]) <= 88


def test_an_unknown_rule_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert _rules.run(argparse.Namespace(rule="byte-prefx")) == 2
    err = capsys.readouterr().err
    assert "unknown rule 'byte-prefx'; known rules: well-formed, subject-error," in err


def test_listing_aligns_ids() -> None:
    text = _rules.listing(catalog())
    widths = {line.index(" error") for line in text.splitlines() if " error " in line}
    assert len(widths) == 1
