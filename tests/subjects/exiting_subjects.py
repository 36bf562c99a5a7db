"""In-process subjects (``python:tests.subjects.exiting_subjects:<factory>``) that end in
what is no ``Exception`` on one-shot forks, and the reference otherwise."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.scenarios import Lifecycle, Scenario
from harness.subjects import Outcome, ReferenceSubject

REFERENCE = ReferenceSubject()


@dataclass
class Ending:
    """The reference, but ``end()`` is called for every ``fork`` scenario."""

    end: Callable[[], None]
    name: str = "ending"
    dialects: tuple[str, ...] = ("openai",)
    lifecycles: tuple[Lifecycle, ...] = ("one-shot",)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        if scenario.action == "fork":
            self.end()
        return REFERENCE.assemble(scenario, dialect)


def _exit_zero() -> None:
    sys.exit(0)


def _generator_exit() -> None:
    raise GeneratorExit


def _keyboard_interrupt() -> None:
    raise KeyboardInterrupt


def _ctrl_c() -> None:
    """What the user's Ctrl-C does: SIGINT to the harness while the subject works."""
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)


def exit_zero() -> Ending:
    return Ending(_exit_zero, name="exit-zero")


def generator_exit() -> Ending:
    return Ending(_generator_exit, name="generator-exit")


def keyboard_interrupt() -> Ending:
    return Ending(_keyboard_interrupt, name="keyboard-interrupt")


def ctrl_c() -> Ending:
    return Ending(_ctrl_c, name="ctrl-c")


class _ExitingProperty:
    """A subject whose ``which`` property calls ``sys.exit(0)`` when read."""

    def __init__(self, which: str) -> None:
        self.which = which

    def __getattr__(self, attribute: str) -> object:
        if attribute == self.which:
            sys.exit(0)
        return getattr(REFERENCE, attribute)


def exiting_factory() -> ReferenceSubject:
    sys.exit(0)


def exiting_name() -> object:
    return _ExitingProperty("name")


def exiting_dialects() -> object:
    return _ExitingProperty("dialects")


def exiting_lifecycles() -> object:
    return _ExitingProperty("lifecycles")
