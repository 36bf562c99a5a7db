"""The JSON reports' schema, shipped in ``schemas/report.schema.json`` (the single source of
truth for their shape, ``docs/reports.md``), and ``report_problems`` over it."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Final

import orjson
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]

__all__ = ["REPORT_SCHEMA", "report_problems"]

REPORT_SCHEMA: Final = Path(__file__).resolve().parent / "schemas" / "report.schema.json"
"""The file holding the schema of every JSON report."""


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(orjson.loads(REPORT_SCHEMA.read_bytes()))


def report_problems(document: Any) -> list[str]:
    """Every way ``document`` breaks the report schema, as ``path: problem`` sentences, in
    document order; empty when it is a valid report."""
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in errors]
