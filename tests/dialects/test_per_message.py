"""A message's rendering kept by the message is what rendering it afresh gives: wherever the
message is, after whatever calls, with whatever markers, in every dialect."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from harness.dialects import all_dialects, get_dialect
from harness.dialects._memo import forget
from harness.dialects._per_message import Names, alone, once
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Text,
)
from harness.scenarios import load_fixtures

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = load_fixtures(ROOT / "fixtures")
DIALECTS = tuple(all_dialects())


def _calls(seen: list[int]):  # type: ignore[no-untyped-def]
    def render(message: Message, names: dict[str, str]) -> str:
        seen.append(1)
        return names.get("c1", "") + "|" + str("c2" in names)

    return render


def test_a_rendering_is_given_again_only_where_the_names_read_the_same() -> None:
    seen: list[int] = []
    render = _calls(seen)
    message = Message("user", (Text("x"),))
    assert once(message, render, {"c1": "f"}) == "f|False"
    assert once(message, render, {"c1": "f", "other": "g"}) == "f|False"  # not read
    assert len(seen) == 1
    assert once(message, render, {"c1": "g"}) == "g|False"
    assert once(message, render, {"c1": "g", "c2": "h"}) == "g|True"
    assert once(message, render, {}) == "|False"
    assert once(message, render) == "|False"  # no names read as the empty ones
    assert len(seen) == 4


def test_a_rendering_that_reads_all_the_names_is_not_kept() -> None:
    seen: list[int] = []

    def render(message: Message, names: dict[str, str]) -> int:
        seen.append(1)
        return len(list(names)) + len(names)

    message = Message("user", (Text("x"),))
    assert once(message, render, {"a": "b"}) == 2
    assert once(message, render, {"a": "b"}) == 2
    assert len(seen) == 2


def test_names_read_with_brackets_and_written_inside() -> None:
    names = Names({"a": "f"})
    assert names["a"] == "f"
    with pytest.raises(KeyError):
        names["b"]
    names["b"] = "g"
    assert names.get("b") == "g"  # set here: settled by the rendering, not recorded
    assert not names.opaque
    assert len(names.reads) == 2
    seen: list[int] = []

    def render(message: Message, names: dict[str, str]) -> str:
        seen.append(1)
        names["c"] = "own"
        return names["c"] + names.get("a", "-")

    message = Message("user", (Text("x"),))
    assert once(message, render, {"a": "f"}) == "ownf"
    assert once(message, render, {"a": "f"}) == "ownf"
    assert once(message, render, {"a": "f", "c": "other"}) == "ownf"
    assert len(seen) == 1
    assert once(message, render, {"a": "g"}) == "owng"
    assert len(seen) == 2


def test_forget_drops_what_messages_hold() -> None:
    seen: list[int] = []

    def render(message: Message) -> int:
        seen.append(1)
        return 1

    message = Message("user", (Text("x"),))
    call = FunctionCall("f", None, "c1")
    with_call = Message("model", (call,))
    assert alone(message, render) == alone(message, render) == 1
    assert with_call.function_calls == (call,)
    assert with_call.function_calls is with_call.function_calls
    forget()
    assert alone(message, render) == 1
    assert len(seen) == 2
    assert with_call.function_calls == (call,)
    assert with_call.function_responses == ()


def _fresh(dialect: str, request: Request) -> bytes:
    forget()
    return get_dialect(dialect).render(request)


def _requests(preset: Preset, history: tuple[Message, ...]) -> list[Request]:
    """Requests holding the very messages at other places, after other calls, marked."""
    out = [Request(preset, history[:k]) for k in range(len(history) + 1)]
    out += [Request(preset, history[k:]) for k in range(1, len(history))]
    out += [Request(preset, history, (f"messages[{k}]",)) for k in range(len(history))]
    out.append(Request(preset, history[::-1]))
    return out


def _histories() -> list[tuple[str, Preset, tuple[Message, ...]]]:
    """Each fixture's history as given and as each dialect reads it back (with wire forms)."""
    out = []
    for scenario in SCENARIOS:
        for dialect in DIALECTS:
            out.append((dialect, scenario.preset, scenario.history))
            rendered = get_dialect(dialect).render(Request(scenario.preset, scenario.history))
            read = get_dialect(dialect).to_request(orjson.loads(rendered))
            out.append((dialect, read.preset, read.history))
    return out


def test_kept_renderings_are_what_rendering_afresh_gives() -> None:
    for dialect, preset, history in _histories():
        requests = _requests(preset, history)
        forget()
        warm = [get_dialect(dialect).render(r) for r in requests]
        assert warm == [_fresh(dialect, r) for r in requests], dialect


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
def test_a_kept_result_takes_the_name_of_the_call_before_it(dialect: str) -> None:
    """A tool result read from a body renders from its wire form only while the call before
    it names its function: the same message object after a call of another name."""
    calls = {name: Message("model", (FunctionCall(name, None, "c1"),)) for name in "fg"}
    answer = Message("user", (FunctionResponse("f", "ok", "c1"), Text("go on")))
    body = get_dialect(dialect).render(Request(Preset(), (calls["f"], answer)))
    read = get_dialect(dialect).to_request(orjson.loads(body)).history
    assert read[1].parts == answer.parts
    kept = read[1]
    for history in ((calls["f"], kept), (calls["g"], kept), (kept,), (calls["f"], kept)):
        warm = get_dialect(dialect).render(Request(Preset(), history))
        assert warm == _fresh(dialect, Request(Preset(), history))
        get_dialect(dialect).render(Request(Preset(), history[::-1]))  # kept for the next
