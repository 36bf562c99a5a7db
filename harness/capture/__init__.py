"""Black-box capture: a scripted fake model provider on loopback that real agent programs
and the official SDKs talk to; it plays model turns from a script and records every
request, secrets redacted; the recorded requests are then grouped into parent, children and
siblings and checked against the rules (docs/capture.md)."""

from ..dialects import FAKE_MODEL, Reply, ToolCall
from ._check import Check, CheckResult, NotChecked, check_records, check_requests
from ._command import GRACE_SECONDS, run_command
from ._env import FAKE_API_KEY, child_environment, provider_environment
from ._group import Conversation, Grouping, GroupOptions, Origin, group
from ._log import LogError, read_log
from ._match import Answer, Facts, Matcher, facts_of
from ._observe import Ignored, Observed, observe, reply_message
from ._record import Record, RecordError, RecordWriter, read_record
from ._redact import REDACTED, redact_headers, redact_query
from ._roles import ForkTurn, Roles, SpawnLink, Unplaced, assign_roles
from ._script import (
    DEFAULT_FORK_TAG,
    DEFAULT_REPLY,
    Rule,
    Script,
    ScriptError,
    When,
    load_script,
    parse_script,
)
from ._server import DEFAULT_MAX_REQUEST_BYTES, FakeProvider, LoopbackError
from ._summary import summarize
from ._usage import TOLERANCE_SHARE, TOLERANCE_TOKENS, UsageComparison, UsageRow, compare_usage

__all__ = [
    "DEFAULT_FORK_TAG",
    "DEFAULT_MAX_REQUEST_BYTES",
    "DEFAULT_REPLY",
    "FAKE_API_KEY",
    "FAKE_MODEL",
    "GRACE_SECONDS",
    "REDACTED",
    "TOLERANCE_SHARE",
    "TOLERANCE_TOKENS",
    "Answer",
    "Check",
    "CheckResult",
    "Conversation",
    "Facts",
    "FakeProvider",
    "ForkTurn",
    "GroupOptions",
    "Grouping",
    "Ignored",
    "LogError",
    "LoopbackError",
    "Matcher",
    "NotChecked",
    "Observed",
    "Origin",
    "Record",
    "RecordError",
    "RecordWriter",
    "Reply",
    "Roles",
    "Rule",
    "Script",
    "ScriptError",
    "SpawnLink",
    "ToolCall",
    "Unplaced",
    "UsageComparison",
    "UsageRow",
    "When",
    "assign_roles",
    "check_records",
    "check_requests",
    "child_environment",
    "compare_usage",
    "facts_of",
    "group",
    "load_script",
    "observe",
    "parse_script",
    "provider_environment",
    "read_log",
    "read_record",
    "redact_headers",
    "redact_query",
    "reply_message",
    "run_command",
    "summarize",
]
