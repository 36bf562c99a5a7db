"""Bodies rendered lately are given again for the very same request objects only."""

import orjson

from harness.dialects import get_dialect
from harness.dialects._memo import forget
from harness.dialects._rendered import Rendered
from harness.model import FrozenDict, Message, Preset, Request, Text, freeze

OPENAI = get_dialect("openai")
PRESET = Preset(system=("Be brief.",))
HELLO = Message("user", (Text("hello"),))


def test_the_same_request_objects_render_once() -> None:
    request = Request(PRESET, (HELLO,))
    body = OPENAI.render(request)
    assert OPENAI.render(Request(PRESET, (HELLO,))) is body  # a new request of the same objects
    assert orjson.loads(body)["messages"][-1] == {"role": "user", "content": "hello"}


def test_an_equal_message_with_another_wire_form_renders_anew() -> None:
    OPENAI.render(Request(PRESET, (HELLO,)))
    wire = FrozenDict(
        {"openai": (freeze({"role": "user", "content": [{"type": "text", "text": "hello"}]}),)}
    )
    other = Message("user", (Text("hello"),), wire)
    assert other == HELLO  # equality ignores the wire form, which renders
    body = OPENAI.render(Request(PRESET, (other,)))
    assert orjson.loads(body)["messages"][-1]["content"] == [{"type": "text", "text": "hello"}]


def test_another_dialect_preset_or_marker_renders_anew() -> None:
    anthropic = get_dialect("anthropic")
    request = Request(PRESET, (HELLO,), ("messages[0]",))
    plain = anthropic.render(request)
    ttl = FrozenDict({"messages[0]": freeze({"type": "ephemeral", "ttl": "1h"})})
    marked = anthropic.render(Request(PRESET, (HELLO,), ("messages[0]",), ttl))
    assert b'"ttl":"1h"' in marked
    assert b'"ttl"' not in plain
    assert anthropic.render(Request(Preset(system=("Be brief.",)), (HELLO,))) != OPENAI.render(
        Request(PRESET, (HELLO,))
    )
    chat = OPENAI.render(Request(PRESET, (HELLO,)))
    same_objects = anthropic.render(Request(PRESET, (HELLO,)))  # only the dialect differs
    assert same_objects != chat
    assert orjson.loads(same_objects)["system"] == "Be brief."
    other = Preset(system=("Be terse.",))
    assert b"Be terse." in OPENAI.render(Request(other, (HELLO,)))  # only the preset differs


def test_the_oldest_bodies_are_dropped_past_the_limits() -> None:
    memo = Rendered(limit=2, max_bytes=10)
    requests = [Request(PRESET, (Message("user", (Text(str(i)),)),)) for i in range(3)]
    for i, request in enumerate(requests):
        memo.put(OPENAI, request, b"%d" % i)
    assert memo.get(OPENAI, requests[0]) is None
    assert memo.get(OPENAI, requests[2]) == b"2"
    memo.put(OPENAI, requests[0], b"0123456789")  # the whole budget: the others go
    assert memo.get(OPENAI, requests[2]) is None
    assert memo.get(OPENAI, requests[0]) == b"0123456789"
    memo.put(OPENAI, requests[1], b"x" * 11)  # more than the budget: not held
    assert memo.get(OPENAI, requests[1]) is None


def test_forget_drops_the_bodies_rendered() -> None:
    request = Request(PRESET, (HELLO,))
    body = OPENAI.render(request)
    forget()
    again = OPENAI.render(request)
    assert again == body
    assert again is not body


def test_a_marker_equal_but_of_another_type_renders_anew() -> None:
    anthropic = get_dialect("anthropic")
    history = (HELLO,)

    def marked(ttl: object) -> bytes:
        control = FrozenDict({"messages[0]": freeze({"type": "ephemeral", "ttl": ttl})})
        return anthropic.render(Request(PRESET, history, ("messages[0]",), control))

    assert b'"ttl":1}' in marked(1)
    assert b'"ttl":true}' in marked(True)  # equal to 1 in Python, not in the body
