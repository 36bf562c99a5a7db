"""Every JSON report a test here makes is validated against the shipped schema as it is made
(``tests.reports.formats.validated_reports``)."""

from tests.reports.formats import validated_reports

__all__ = ["validated_reports"]
