"""Answers the fake provider stored, so that a body continuing one (OpenAI Responses
``previous_response_id``) is read as the provider reads it: the continued request's input,
the model's answer to it, then the body's own input.

The fake keeps every answer it gives under the wire's response id, and grouping does the
same over a record, so scripts match and grouping places a continuation by its whole
history, while the record and the rules keep the body as sent. A check of a log keeps no
continued body in memory: it stores a loader that reads that body back when it is needed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from ..dialects import Dialect
from ..model import Message

__all__ = ["Continued", "Stored"]

BodyOrLoader: TypeAlias = Mapping[str, Any] | Callable[[], Mapping[str, Any]]
"""A request as read, or a function that reads it back (a log's body is not kept)."""


@dataclass(frozen=True, slots=True)
class Continued:
    """What a continuation continues: the request answered (as read, or its loader) and the
    answer; ``expand`` reads a continuing body with them."""

    before: BodyOrLoader
    answer: Message

    def expand(self, dialect: Dialect, body: Mapping[str, Any]) -> Mapping[str, Any]:
        """``body`` with the continued input and answer ahead of its own (``DialectError``
        for a body the dialect cannot expand)."""
        before = self.before() if callable(self.before) else self.before
        return dialect.expand(body, before, [self.answer])


class Stored:
    """Stored answers by response id: the request each answered, as read, and the answer."""

    def __init__(self) -> None:
        self._answers: dict[str, Continued] = {}
        self._lock = threading.Lock()

    def keep(self, response_id: str | None, body: BodyOrLoader, answer: Message) -> None:
        """Store ``answer`` to ``body`` (as read, or a function that reads it back) under
        ``response_id``; nothing when the wire stores no answers (``None``)."""
        if response_id is not None:
            with self._lock:
                self._answers[response_id] = Continued(body, answer)

    def find(self, dialect: Dialect, body: Mapping[str, Any]) -> Continued | str | None:
        """What ``body`` continues: ``None`` when it continues nothing, a note when the
        answer it continues is not stored here (it is then read as its own input only)."""
        response = dialect.continued(body)
        if response is None:
            return None
        with self._lock:
            found = self._answers.get(response)
        if found is None:
            return (
                f"the body continues {response!r}, which is no answer of this fake; it is read"
                " as its own input only"
            )
        return found

    def read(
        self, dialect: Dialect, body: Mapping[str, Any]
    ) -> tuple[Mapping[str, Any], str | None]:
        """``body`` as the provider reads it, and a note when it continues an answer not
        stored here (it is then read as its own input only). ``DialectError`` for a body the
        dialect cannot expand."""
        found = self.find(dialect, body)
        if found is None or isinstance(found, str):
            return body, found
        return found.expand(dialect, body), None
