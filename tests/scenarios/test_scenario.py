import pytest

from harness.assemblers import DEFAULT_WORDING
from harness.model import Message, Preset, Text
from harness.scenarios import Continuation, Scenario, lifecycle_of

HISTORY = (Message("user", (Text("hi"),)), Message("model", (Text("hello"),)))


def test_lifecycle_of_each_action() -> None:
    assert [lifecycle_of(a) for a in ("fork", "siblings", "continuable", "spawn")] == [
        "one-shot",
        "one-shot",
        "continuable",
        "spawn",
    ]


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"id": "has space", "action": "fork", "directives": ("d",)}, "id must be non-empty"),
        ({"id": "a", "action": "explode"}, "action 'explode' is not one of"),
        ({"id": "a", "action": "fork"}, "a fork has exactly one directive"),
        ({"id": "a", "action": "siblings", "directives": ("x",)}, "siblings need two or more"),
        ({"id": "a", "action": "continuable"}, "a continuable fork needs a continuation"),
        ({"id": "a", "action": "spawn", "prompt": "  "}, "a spawn needs a delegation prompt"),
    ],
)
def test_invalid_scenarios_are_refused_with_the_reason(kwargs: dict, problem: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=problem):
        Scenario(preset=Preset(), history=HISTORY, **kwargs)


def test_valid_scenarios() -> None:
    fork = Scenario("f", "fork", Preset(), HISTORY, directives=("go",))
    assert fork.lifecycle == "one-shot"
    cont = Scenario("c", "continuable", Preset(), HISTORY, continuation=Continuation("t", "p1"))
    assert cont.lifecycle == "continuable"


def test_mentions_finds_text_in_the_history() -> None:
    child = Message("user", (Text(DEFAULT_WORDING.child_message("look")),))
    scenario = Scenario("r", "fork", Preset(), (*HISTORY, child), directives=("again",))
    assert scenario.mentions(DEFAULT_WORDING.open_tag)
    assert not scenario.mentions("nowhere to be seen")
