"""Answers the fake provider stored, so that a body continuing one (OpenAI Responses
``previous_response_id``) is read as the provider reads it: the continued request's input,
the model's answer to it, then the body's own input.

The fake keeps every answer it gives under the wire's response id, and grouping does the
same over a record, so scripts match and grouping places a continuation by its whole
history, while the record and the rules keep the body as sent.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from ..dialects import Dialect
from ..model import Message

__all__ = ["Stored"]


class Stored:
    """Stored answers by response id: the request each answered, as read, and the answer."""

    def __init__(self) -> None:
        self._answers: dict[str, tuple[Mapping[str, Any], Message]] = {}
        self._lock = threading.Lock()

    def keep(self, response_id: str | None, body: Mapping[str, Any], answer: Message) -> None:
        """Store ``answer`` to ``body`` (as read) under ``response_id``; nothing when the
        wire stores no answers (``None``)."""
        if response_id is not None:
            with self._lock:
                self._answers[response_id] = (body, answer)

    def read(
        self, dialect: Dialect, body: Mapping[str, Any]
    ) -> tuple[Mapping[str, Any], str | None]:
        """``body`` as the provider reads it, and a note when it continues an answer not
        stored here (it is then read as its own input only). ``DialectError`` for a body the
        dialect cannot expand."""
        response = dialect.continued(body)
        if response is None:
            return body, None
        with self._lock:
            found = self._answers.get(response)
        if found is None:
            return body, (
                f"the body continues {response!r}, which is no answer of this fake; it is read"
                " as its own input only"
            )
        before, answer = found
        return dialect.expand(body, before, [answer]), None
