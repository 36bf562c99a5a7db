"""What a subject gives back (harness/protocol/_subject.py): the in-process side of the protocol."""

from __future__ import annotations

import dataclasses

import pytest

from harness.protocol import Outcome, Subject
from harness.scenarios import Lifecycle, Scenario
from harness.subjects import ReferenceSubject


class _Named:
    name = "named"
    dialects = ("openai",)
    lifecycles: tuple[Lifecycle, ...] = ("one-shot",)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        return Outcome("skipped", message="not this one")


class _Nameless:
    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        return Outcome("skipped")


def test_an_outcome_holds_no_bodies_until_given_and_is_frozen() -> None:
    outcome = Outcome("rejected", message="no recursion")
    assert (outcome.parent, outcome.children, outcome.follow_ups, outcome.parent_next) == (
        None,
        (),
        (),
        None,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.status = "assembled"  # type: ignore[misc]


def test_a_subject_is_anything_with_a_name_dialects_lifecycles_and_assemble() -> None:
    assert isinstance(_Named(), Subject)
    assert isinstance(ReferenceSubject(), Subject)
    assert not isinstance(_Nameless(), Subject)
