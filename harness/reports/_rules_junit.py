"""Rule reports as JUnit XML, for CI systems that show test results.

One ``<testsuite>`` per scenario and dialect, one ``<testcase>`` per rule (classname
``prefix-harness.<dialect>.<scenario>``, name the rule id): ``<failure>`` for a failed rule,
``<skipped>`` for a rule that does not apply, and warnings and notes as passing cases whose
``<system-out>`` says what was noticed. The subject is a property of each suite.

A subject's messages may hold characters XML 1.0 cannot (NUL, ESC, BEL, lone surrogates, even
as character references): every attribute and text is passed through ``xml_safe``, which
escapes them, so that the document always parses.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ..rules import Finding, ScenarioReport, rule_info
from ._escape import xml_safe
from ._rules_text import cost_text, finding_details

__all__ = ["rules_junit"]

_PREFIX = "prefix-harness"


def _case(suite: ET.Element, classname: str, f: Finding) -> None:
    case = ET.SubElement(suite, "testcase", classname=classname, name=f.rule)
    if f.status == "fail":
        failure = ET.SubElement(case, "failure", message=f.message, type=rule_info(f.rule).severity)
        failure.text = "\n".join(finding_details(f))
    elif f.status == "not-applicable":
        ET.SubElement(case, "skipped", message=f.message)
    elif f.status in ("warning", "note"):
        out = ET.SubElement(case, "system-out")
        cost = [f"cost: {cost_text(f.cost)}"] if f.cost is not None else []
        out.text = "\n".join([f"{f.status}: {f.message}", *cost])


def _make_safe(root: ET.Element) -> None:
    """Every attribute value and text of the tree, with what XML cannot hold escaped."""
    for element in root.iter():
        for key, value in element.attrib.items():
            element.set(key, xml_safe(value))
        if element.text:
            element.text = xml_safe(element.text)


def rules_junit(reports: Sequence[ScenarioReport]) -> bytes:
    """The reports as a JUnit XML document (UTF-8, with an XML declaration)."""
    root = ET.Element("testsuites", name=_PREFIX)
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for report in reports:
        classname = f"{_PREFIX}.{report.dialect}.{report.scenario_id}"
        counts = report.counts
        numbers = {
            "tests": len(report.findings),
            "failures": counts["fail"],
            "skipped": counts["not-applicable"],
        }
        attributes = {"name": classname, "errors": "0"}
        attributes.update((k, str(v)) for k, v in numbers.items())
        suite = ET.SubElement(root, "testsuite", attributes)
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="subject", value=report.subject)
        for f in report.findings:
            _case(suite, classname, f)
        for key, value in numbers.items():
            totals[key] += value
    root.attrib.update({k: str(v) for k, v in totals.items()})
    _make_safe(root)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"
