"""Validators of the reports' formats, for every test that makes a report: the JSON Schema
shipped in ``harness/reports/schemas`` and the project's own JUnit XSD (``junit.xsd`` here,
read from this folder: nothing is fetched).

``validated_reports`` is an autouse fixture for the conftest of each folder whose tests run
commands: every JSON report made while a test runs (``outcomes_json``, which each command's
report goes through) is checked against the schema, whether or not the test reads it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
import xmlschema

from harness.reports import _rules_json
from harness.reports._schema import report_problems

JUNIT_XSD = Path(__file__).resolve().parent / "junit.xsd"


def assert_valid_report(document: Any) -> None:
    """``document`` (parsed JSON) is a valid report by the shipped schema."""
    problems = report_problems(document)
    assert not problems, "the JSON report breaks its schema:\n" + "\n".join(problems[:20])


@cache
def _junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(JUNIT_XSD))


def junit_problems(document: bytes) -> list[str]:
    """Every way a JUnit XML document breaks ``junit.xsd``."""
    root = ET.fromstring(document)
    return [str(e.reason or e) for e in _junit_schema().iter_errors(root)]


def assert_valid_junit(document: bytes) -> None:
    problems = junit_problems(document)
    assert not problems, "the JUnit XML breaks junit.xsd:\n" + "\n".join(problems[:20])


@pytest.fixture(autouse=True)
def validated_reports(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every JSON report made during the test, each validated as it is made."""
    made: list[Any] = []
    real = _rules_json.report_bytes

    def validated(document: dict[str, Any]) -> bytes:
        data = real(document)
        parsed = orjson.loads(data)
        assert_valid_report(parsed)
        made.append(parsed)
        return data

    monkeypatch.setattr(_rules_json, "report_bytes", validated)
    return made
