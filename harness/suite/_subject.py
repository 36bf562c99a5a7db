"""The subject of a pytest run, loaded and started at its first use, once per process.

Nothing is started while pytest configures, collects or prints its help: a test that never
takes the subject costs nothing, a bad ``--prefix-subject`` fails only the tests that use it,
and under pytest-xdist each worker starts its own subject when its first test needs it (the
controller, which runs no test, none).
"""

from __future__ import annotations

from ..subjects import (
    LoadedSubject,
    SubjectFailure,
    SubjectStartError,
    SubprocessOptions,
    load_subject,
)

__all__ = ["LazySubject", "SubjectUnavailable"]


class SubjectUnavailable(Exception):
    """The subject could not be loaded or started; ``str()`` is one sentence naming it."""


class LazySubject:
    """``get()`` loads and starts the subject ``spec`` names the first time it is called and
    gives the same one after; a failure is kept, so it is not tried again for every test."""

    def __init__(self, spec: str, options: SubprocessOptions | None = None) -> None:
        self.spec = spec
        self.options = options
        self._subject: LoadedSubject | None = None
        self._error: str | None = None

    @property
    def started(self) -> bool:
        return self._subject is not None

    def get(self) -> LoadedSubject:
        """The started subject; ``SubjectUnavailable`` when it cannot be loaded or started."""
        if self._error is not None:
            raise SubjectUnavailable(self._error)
        if self._subject is None:
            try:
                subject = load_subject(self.spec, options=self.options)
                subject.start()
            except (ValueError, SubjectStartError) as e:
                self._error = f"--prefix-subject {self.spec!r}: {e}"
                raise SubjectUnavailable(self._error) from None
            self._subject = subject
        return self._subject

    def close(self) -> tuple[SubjectFailure, ...]:
        """Stop the subject if it was started; idempotent. A process subject is stopped with
        its ``finish()``, as ``check`` stops it: what it wrote after its last reply is
        returned as its failures."""
        subject, self._subject = self._subject, None
        if subject is None:
            return ()
        finish = getattr(subject, "finish", None)
        if not callable(finish):
            subject.close()
            return ()
        failures = tuple(f for f in finish() if isinstance(f, SubjectFailure))
        subject.close()
        return failures
