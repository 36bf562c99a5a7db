"""Rule reports as JUnit XML, for CI systems that show test results.

One ``<testsuite>`` per scenario and dialect, one ``<testcase>`` per rule (classname
``prefix-harness.<dialect>.<scenario>``, name the rule id): ``<failure>`` for a failed rule,
``<skipped>`` for a rule that does not apply (left out for a check of recorded requests:
``applicable``), and warnings and notes as passing cases whose
``<system-out>`` says what was noticed. The subject is a property of each suite.

A subject's messages may hold characters XML 1.0 cannot (NUL, ESC, BEL, lone surrogates, even
as character references): every attribute and text is passed through ``xml_safe``, which
escapes them, so that the document always parses.

``finish_junit`` makes a tree the common JUnit format (the one Jenkins, Ant and pytest
readers take; docs/reports.md): each suite's ``tests``, ``failures``, ``errors`` and
``skipped`` counted from its cases, a ``time``, ``timestamp`` and ``hostname`` on each suite,
a ``time`` on each case (0: rules are judged on recorded bodies, which takes no time worth
reporting per rule), and on ``<testsuites>`` only the totals that format allows (no
``skipped``).
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime

from ..rules import Finding, ScenarioReport, rule_info
from ._escape import xml_safe
from ._rules_text import cost_text, finding_details

__all__ = ["finish_junit", "rules_junit"]

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


_COUNTED = {"failures": "failure", "errors": "error", "skipped": "skipped"}
_TOTALS = ("tests", "failures", "errors")


def finish_junit(root: ET.Element, *, timestamp: datetime | None = None) -> bytes:
    """``root`` (a ``<testsuites>``) counted, timed, escaped and encoded (UTF-8, with an XML
    declaration): see the module's docstring. ``timestamp`` defaults to now (UTC)."""
    when = (timestamp or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S")
    host = socket.gethostname() or "localhost"
    totals = dict.fromkeys(_TOTALS, 0)
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        counts = {"tests": len(cases)}
        counts.update(
            (k, sum(c.find(tag) is not None for c in cases)) for k, tag in _COUNTED.items()
        )
        for case in cases:
            case.set("time", case.get("time", "0"))
        suite.attrib.update({k: str(v) for k, v in counts.items()})
        suite.attrib.update(time=suite.get("time", "0"), timestamp=when, hostname=host)
        for key in _TOTALS:
            totals[key] += counts[key]
    root.attrib.pop("skipped", None)
    root.attrib.update({k: str(v) for k, v in totals.items()})
    root.set("time", root.get("time", "0"))
    _make_safe(root)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def rules_junit(reports: Sequence[ScenarioReport], *, applicable: bool = False) -> bytes:
    """The reports as a JUnit XML document (UTF-8, with an XML declaration). With
    ``applicable``, a rule that does not apply has no case (a recorded group is judged by the
    few rules its shape has); a report no rule applied to keeps one skipped case saying why."""
    root = ET.Element("testsuites", name=_PREFIX)
    for report in reports:
        classname = f"{_PREFIX}.{report.dialect}.{report.scenario_id}"
        suite = ET.SubElement(root, "testsuite", name=classname)
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="subject", value=report.subject)
        findings = report.findings
        if applicable:
            findings = tuple(f for f in findings if f.status != "not-applicable") or findings[:1]
        for f in findings:
            _case(suite, classname, f)
    return finish_junit(root)
