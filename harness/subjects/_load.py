"""``load_subject``: a subject from its command-line spelling (README, ``prefix-harness check``).

- ``reference`` — the bundled reference implementation (the default);
- ``python:package.module:factory`` — ``factory()`` returns a ``Subject``, run in process;
- ``cmd:<command line>`` — a process speaking the JSON-lines protocol, split like a shell
  would (``shlex``) and run in the current directory.
"""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import sys
from types import TracebackType
from typing import Protocol, cast, runtime_checkable

from ..protocol import Outcome, Subject
from ..scenarios import Lifecycle, Scenario
from ._inprocess import InProcessSubject, guarded
from ._reference import ReferenceSubject
from ._subprocess import SubprocessOptions, SubprocessSubject

__all__ = ["LoadedSubject", "load_subject"]

_USAGE = "use reference, python:package.module:factory or cmd:<command line>"


@runtime_checkable
class LoadedSubject(Protocol):
    """A ``Subject`` as ``load_subject`` gives it: started, used, closed (a context manager).

    ``assemble`` never raises for the subject's misbehaviour; it returns a
    ``SubjectFailure``. ``start`` raises ``SubjectStartError``.
    """

    @property
    def name(self) -> str: ...

    @property
    def dialects(self) -> tuple[str, ...]: ...

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]: ...

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome: ...

    def start(self) -> object: ...

    def close(self) -> None: ...

    def __enter__(self) -> LoadedSubject: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def load_subject(spec: str, *, options: SubprocessOptions | None = None) -> LoadedSubject:
    """The subject ``spec`` names; ``ValueError`` with one clear sentence otherwise.

    ``options`` apply to a ``cmd:`` subject. Nothing is started yet: ``start()`` (or
    entering the context, or the first ``assemble``) does that.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"no subject given; {_USAGE}")
    kind, colon, rest = spec.partition(":")
    if spec.strip() == "reference":
        return InProcessSubject(ReferenceSubject())
    if colon and kind == "python":
        return InProcessSubject(_factory_subject(rest, spec))
    if colon and kind == "cmd":
        return SubprocessSubject(_command(rest, spec), options)
    raise ValueError(f"unknown subject {spec!r}; {_USAGE}")


def _factory_subject(target: str, spec: str) -> Subject:
    module_name, colon, attribute = target.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"subject {spec!r}: write python:package.module:factory")
    module = _import(module_name, spec)
    factory: object = module
    for part in attribute.split("."):
        if not hasattr(factory, part):
            raise ValueError(
                f"subject {spec!r}: module {module_name!r} has no attribute {attribute!r}"
            )
        factory = getattr(factory, part)
    if not callable(factory):
        raise ValueError(
            f"subject {spec!r}: {attribute} is a {type(factory).__name__}, not a callable factory"
        )
    subject: object = guarded(factory, f"subject {spec!r}: {attribute}()")
    # isinstance of a Protocol reads the subject's properties: one may raise, or exit
    if not guarded(lambda: isinstance(subject, Subject), f"subject {spec!r}: reading it"):
        raise ValueError(
            f"subject {spec!r}: {attribute}() returned a {type(subject).__name__}, not a Subject "
            "(one with name, dialects, lifecycles and assemble(scenario, dialect))"
        )
    return cast(Subject, subject)  # checked above (isinstance again would read it again)


def _import(module_name: str, spec: str) -> object:
    """Import like ``python -m`` would: the current directory is searched first."""
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is not None and (module_name + ".").startswith(e.name + "."):
            raise ValueError(f"subject {spec!r}: no module named {e.name!r}") from e
        raise ValueError(f"subject {spec!r}: importing {module_name!r} failed: {e}") from e
    except Exception as e:
        raise ValueError(
            f"subject {spec!r}: importing {module_name!r} failed: {type(e).__name__}: {e}"
        ) from e
    except SystemExit as e:  # the module exits as it is imported: not the harness's exit
        raise ValueError(
            f"subject {spec!r}: importing {module_name!r} raised SystemExit({e.code!r})"
        ) from None
    finally:
        if added:
            sys.path.remove(here)


def _command(line: str, spec: str) -> list[str]:
    try:
        argv = shlex.split(line)
    except ValueError as e:
        raise ValueError(f"subject {spec!r}: cannot split the command line ({e})") from None
    if not argv:
        raise ValueError(f"subject {spec!r}: the command line is empty")
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            raise ValueError(f"subject {spec!r}: no such file {program!r}")
        if not os.access(program, os.X_OK):
            raise ValueError(f"subject {spec!r}: {program!r} is not executable")
    elif shutil.which(program) is None:
        raise ValueError(f"subject {spec!r}: {program!r} is not a command on PATH")
    return argv
