"""The JSON reports' schema (harness/reports/_schema.py): a valid draft 2020-12 schema, and
``report_problems`` says where a document breaks it."""

from __future__ import annotations

import orjson
from jsonschema import Draft202012Validator

from harness.check import CheckRun
from harness.reports import REPORT_SCHEMA, check_json, report_problems


def test_the_schema_is_a_valid_schema_of_its_draft() -> None:
    schema = orjson.loads(REPORT_SCHEMA.read_bytes())
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["format_version"] == {"const": 2}


def test_a_document_that_breaks_the_schema_is_told_where() -> None:
    document = orjson.loads(check_json(CheckRun("s", ("openai",), (), 0, (), ())))
    assert report_problems(document) == []
    document["format_version"] = 1
    del document["reports"]
    document["unexpected_failures"] = [{"dialect": "openai"}]
    problems = report_problems(document)
    assert "(root): 'reports' is a required property" in problems
    assert "format_version: 2 was expected" in problems
    assert any(p.startswith("unexpected_failures/0: 'scenario' is a required") for p in problems)
