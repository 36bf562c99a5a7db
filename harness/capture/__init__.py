"""Black-box capture: a scripted fake model provider on loopback that real agent programs
and the official SDKs talk to; it plays model turns from a script and records every
request, secrets redacted (docs/capture.md)."""

from ._env import FAKE_API_KEY, child_environment, provider_environment
from ._match import Answer, Facts, Matcher, facts_of
from ._record import Record, RecordError, RecordWriter, read_record
from ._redact import REDACTED, redact_headers, redact_query
from ._reply import Reply, ToolCall
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
from ._wire import FAKE_MODEL

__all__ = [
    "DEFAULT_FORK_TAG",
    "DEFAULT_MAX_REQUEST_BYTES",
    "DEFAULT_REPLY",
    "FAKE_API_KEY",
    "FAKE_MODEL",
    "REDACTED",
    "Answer",
    "Facts",
    "FakeProvider",
    "LoopbackError",
    "Matcher",
    "Record",
    "RecordError",
    "RecordWriter",
    "Reply",
    "Rule",
    "Script",
    "ScriptError",
    "ToolCall",
    "When",
    "child_environment",
    "facts_of",
    "load_script",
    "parse_script",
    "provider_environment",
    "read_record",
    "redact_headers",
    "redact_query",
    "summarize",
]
