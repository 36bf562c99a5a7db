"""The subject protocol (docs/protocol.md): what the harness asks of an implementation under
test and what it gets back, in process and as JSON lines between the harness and a process.

In process, a ``Subject`` assembles a scenario into an ``Outcome`` (the request bodies it
would send); the rules judge outcomes, so both live here, below the rules and the subjects.
Over a process, the message shapes are the JSON Schemas in ``schemas/`` (one per message
kind); this package builds and reads the messages and validates them against those schemas.
Running a subject process is ``harness.subjects.SubprocessSubject``; serving a Python
``Subject`` over the protocol is ``harness.subjects.serve``. See docs/protocol.md.
"""

from ._messages import (
    LIFECYCLES,
    PROTOCOL_VERSION,
    SAME_SCENARIO,
    AssembleReply,
    Implementation,
    ProtocolError,
    ReplyStatus,
    SubjectRefused,
    assemble_reply,
    assemble_request,
    encode_assemble,
    encode_assemble_parts,
    encode_line,
    encode_same_scenario,
    refusal_reply,
    same_scenario_request,
    start_reply,
    start_request,
    stop_request,
)
from ._read import decode_line, read_assemble_reply, read_start_reply
from ._schemas import MESSAGE_KINDS, MessageKind, schema_path, validate_message
from ._subject import Outcome, OutcomeStatus, Subject

__all__ = [
    "LIFECYCLES",
    "MESSAGE_KINDS",
    "PROTOCOL_VERSION",
    "SAME_SCENARIO",
    "AssembleReply",
    "Implementation",
    "MessageKind",
    "Outcome",
    "OutcomeStatus",
    "ProtocolError",
    "ReplyStatus",
    "Subject",
    "SubjectRefused",
    "assemble_reply",
    "assemble_request",
    "decode_line",
    "encode_assemble",
    "encode_assemble_parts",
    "encode_line",
    "encode_same_scenario",
    "read_assemble_reply",
    "read_start_reply",
    "refusal_reply",
    "same_scenario_request",
    "schema_path",
    "start_reply",
    "start_request",
    "stop_request",
    "validate_message",
]
