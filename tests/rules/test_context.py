import itertools
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import get_dialect
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Part,
    Request,
    Text,
    Thinking,
    freeze,
)
from harness.rules import Cost, Finding
from harness.rules._body import Body, message_frames
from harness.rules._context import Context, _kept, encoded, inherited_span, parent_span
from harness.rules._evidence import json_start
from harness.rules._report import combine
from harness.rules._rules_history import _args, _redacted
from harness.rules._rules_prefix import (
    _count,
    _directive_at,
    _known_texts,
    _misplaced,
    holds_task,
)
from harness.rules._rules_shape import _describe, _flag, _pairing, call_pairing
from harness.scenarios import Scenario, calls_answered
from harness.subjects import Outcome

from .bad_subjects import CASES
from .scenarios import BY_ID
from .support import DIALECTS, REFERENCE, context, edited, finding


@pytest.mark.parametrize(
    ("scenario", "length"),
    [
        ("fork-model-calls", 4),
        ("fork-model", 4),
        ("fork-user", 4),  # the trailing user message is dropped
        ("continuable", 4),  # the completed turns
        ("spawn", 0),
    ],
)
def test_inherited_span_by_action_and_ending(scenario: str, length: int) -> None:
    assert len(inherited_span(BY_ID[scenario])) == length


def test_the_inherited_span_is_the_scenarios_not_a_rendering() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "openai")
    assert ctx.inherited == inherited_span(BY_ID["fork-model-calls"])
    thinking = ctx.inherited[1].parts[0]
    assert isinstance(thinking, Thinking)
    assert thinking.signature == "sig-1"  # as given, though chat completions cannot send it


@pytest.mark.parametrize(
    ("scenario", "length"),
    [("fork-model-calls", 3), ("fork-model", 3), ("fork-user", 3), ("continuable", 3)],
)
def test_the_parent_span_ends_before_the_last_inherited_model_message(
    scenario: str, length: int
) -> None:
    span = parent_span(BY_ID[scenario])
    assert len(span) == length
    assert inherited_span(BY_ID[scenario])[length].role == "model"


def test_a_spawns_parent_span_is_its_history_before_the_delegating_turn() -> None:
    assert parent_span(BY_ID["spawn"]) == BY_ID["spawn"].history[:1]


def test_inherited_end_and_offset_in_a_child() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "anthropic")
    child = ctx.children[0]
    end = ctx.inherited_end(child)
    assert child.frames[end - 1].name == "messages[3]"
    assert child.frames[end].name == "messages[4]"
    assert ctx.inherited_offset(child) == child.frames[end].start


def test_bodies_are_labelled_and_problems_collected() -> None:
    ref = REFERENCE.assemble(BY_ID["continuable-follow-ups"], "gemini")
    ctx = Context.read(BY_ID["continuable-follow-ups"], get_dialect("gemini"), ref)
    assert ctx.parent is not None
    assert [b.label for b in (ctx.parent, *ctx.children, *ctx.follow_ups)] == [
        "parent",
        "children[0]",
        "follow_ups[0]",
        "follow_ups[1]",
    ]
    assert ctx.problems == ()
    broken = Outcome("assembled", parent=b"{}", children=(b"nope",))
    bad = Context.read(BY_ID["fork-model"], get_dialect("gemini"), broken)
    assert [label for label, _ in bad.problems] == ["parent", "children[0]"]
    assert bad.children == ()


def test_cost_is_the_parents_prefix_bytes_the_child_cannot_reuse() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "openai")
    child = ctx.children[0]
    assert ctx.divergence(child) is None
    cost = ctx.cost(child)
    assert cost.lost_bytes == 0
    assert cost.child_bytes == child.stream.length


def test_cost_never_exceeds_the_childs_own_prefix() -> None:
    ctx = context(CASES["pruned"].subject, "fork-model-calls", "openai")
    child = ctx.children[0]
    assert ctx.parent is not None
    short = Outcome(
        "assembled",
        parent=REFERENCE.assemble(BY_ID["fork-model-calls"], "openai").parent,
        children=(b'{"model":"model-large","messages":[{"role":"user","content":"x"}]}',),
    )
    tiny = Context.read(BY_ID["fork-model-calls"], get_dialect("openai"), short)
    cost = tiny.cost(tiny.children[0])
    assert cost.lost_bytes <= cost.child_bytes
    assert cost.share <= 1.0
    assert ctx.cost(child).share <= 1.0


def test_a_settings_change_costs_the_prefix_it_invalidates() -> None:
    ctx = context(REFERENCE, "fork-model-calls", "anthropic")
    child = ctx.children[0]
    assert ctx.parent is not None
    whole = ctx.cost_from(child, "request")
    messages = ctx.cost_from(child, "history")
    assert whole.lost_bytes == min(ctx.parent.stream.length, child.stream.length)
    first = ctx.parent.frames[ctx.parent.history_start].start
    assert messages.lost_bytes == whole.lost_bytes - first
    assert 0 < messages.lost_bytes < whole.lost_bytes


def test_a_cost_above_the_childs_bytes_is_refused() -> None:
    with pytest.raises(ValueError, match="a cost of 5 bytes out of 4"):
        Cost(5, 4)


def test_why_no_prefix_is_expected() -> None:
    assert context(REFERENCE, "fork-model", "openai").prefix_unexpected() is None
    assert "degraded" in (context(REFERENCE, "degraded", "openai").prefix_unexpected() or "")
    assert "spawned" in (context(REFERENCE, "spawn", "openai").prefix_unexpected() or "")
    none = Context.read(BY_ID["fork-model"], get_dialect("openai"), Outcome("assembled"))
    assert "no parent body" in (none.prefix_unexpected() or "")


def test_recursion_degradation_and_tasks_come_from_the_scenario() -> None:
    assert context(REFERENCE, "recursive", "gemini").recursive
    assert not context(REFERENCE, "fork-model", "gemini").recursive
    tagged = replace(BY_ID["recursive"], known_fork_child=False)
    outcome = REFERENCE.assemble(BY_ID["fork-model"], "gemini")
    # the reference's own tag in the history says nothing: the field does
    assert not Context.read(tagged, get_dialect("gemini"), outcome).recursive
    assert context(REFERENCE, "degraded", "gemini").degraded
    siblings = context(REFERENCE, "siblings", "gemini")
    assert (siblings.task(0), siblings.task(1), siblings.task(2)) == (
        "Research option A.",
        "Research option B.",
        None,
    )
    continuable = context(REFERENCE, "continuable", "gemini")
    assert continuable.task(0) == BY_ID["continuable"].continuation.task  # type: ignore[union-attr]


def test_encoded_is_the_text_inside_a_json_string() -> None:
    assert encoded('say "hi"\n') == b'say \\"hi\\"\\n'


def _drop_inherited(keep: int) -> object:
    """A child edit: only the first ``keep`` inherited messages, then the task message (the
    child's own last message), as a runtime that rebuilds a shortened history does."""

    def edit(request: Request, scenario: Scenario, index: int) -> Request:
        span = len(inherited_span(scenario))
        return replace(request, history=(*request.history[:keep], *request.history[span:]))

    return edit


@pytest.mark.parametrize("dialect", ["openai", "openai-responses", "anthropic"])
def test_a_child_that_drops_inherited_messages_sends_its_task_after_what_it_kept(
    dialect: str,
) -> None:
    subject = edited("drops-the-answer", child=_drop_inherited(1))
    ctx = context(subject, "fork-model", dialect)
    (child,) = ctx.children
    assert len(ctx.inherited) == 4
    assert ctx.inherited_count(child) == 1
    assert finding(subject, "fork-model", dialect, "task-after-prefix").status == "pass"
    assert finding(subject, "fork-model", dialect, "history-inherited").status == "fail"
    found = finding(subject, "fork-model", dialect, "alternation")
    assert found.status == "fail"
    assert found.message.endswith("stops short of the model turn here")


def test_a_task_written_into_an_inherited_message_is_inside_the_span() -> None:
    def into_a_user_turn(request: Request, scenario: Scenario, index: int) -> Request:
        history = list(request.history)
        history[2] = replace(history[2], parts=(*history[2].parts, Text(scenario.directives[0])))
        return replace(request, history=tuple(history))

    subject = edited("task-in-a-user-turn", child=into_a_user_turn)
    ctx = context(subject, "fork-model", "openai-responses")
    assert ctx.inherited_count(ctx.children[0]) == len(ctx.inherited)
    found = finding(subject, "fork-model", "openai-responses", "task-after-prefix")
    assert found.status == "fail"
    assert "inherited message 2" in found.message


# --- the walks over long histories --------------------------------------------------------
# Against plain versions of them: the per-body counts the context keeps, and the walks that
# skip what those counts settle, give what a walk over every message gives, on histories
# drawn to trip them (values equal in Python that encode differently, system turns,
# redacted and unanswered calls).

_PARTS: list[Part] = [
    Text("1"),
    Text("Fix the tokenizer."),  # the directive of the scenario the walks run in
    Text("Then: Fix the tokenizer."),
    FunctionCall("run", freeze({"a": 1}), "c1"),
    FunctionCall("run", freeze({"a": True}), "c1"),
    FunctionCall("run", freeze({"a": 1.0}), "c1"),
    FunctionCall("run", freeze({}), "c1"),
    FunctionCall("run", None, "c2"),
    FunctionCall("ls", freeze({"p": "."}), None),
    FunctionResponse("run", freeze({"ok": 1}), "c1"),
    FunctionResponse("run", freeze({"ok": True}), "c2"),
    FunctionResponse("ls", "done", None),
]
_MESSAGES = [
    Message(role, parts)
    for role in ("user", "model", "system")
    for parts in [(p,) for p in _PARTS] + [(_PARTS[2], _PARTS[6]), (_PARTS[8], _PARTS[9])]
]
_HISTORY = st.lists(st.sampled_from(_MESSAGES), max_size=8).map(tuple)


def _old_kept(span: tuple[Message, ...], history: tuple[Message, ...]) -> int:
    j = 0
    for i, message in enumerate(history):
        if j >= len(span):
            return i
        found = next((k for k in range(j, len(span)) if span[k] == message), None)
        if found is None:
            return len(span) if message.role == span[j].role else i
        j = found + 1
    return len(span)


@settings(max_examples=400, deadline=None)
@given(_HISTORY, _HISTORY, st.integers(0, 8))
def test_kept_and_aligned_are_the_plain_walks(
    span: tuple[Message, ...], tail: tuple[Message, ...], cut: int
) -> None:
    history = span[:cut] + tail
    count, aligned = _kept(span, history)
    assert count == _old_kept(span, history)
    run = 0
    while run < min(len(span), len(history)) and span[run] == history[run]:
        run += 1
    assert aligned == run


def _contexts() -> list[tuple[Context, Body]]:
    found = []
    for scenario in BY_ID:
        for dialect in DIALECTS:
            ctx = context(REFERENCE, scenario, dialect)
            found += [(ctx, b) for b in (ctx.parent, *ctx.children, *ctx.follow_ups) if b]
    return found


def test_message_spans_and_the_inherited_end_are_the_counts_before_them() -> None:
    for ctx, body in _contexts():
        history = body.request.history
        for k in range(len(history) + 2):
            counts = message_frames(ctx.dialect, history[: k + 1])
            start = body.history_start + sum(counts[:k])
            end = min(start + (counts[k] if k < len(counts) else 0), body.frame_count)
            assert ctx.message_span(body, k) == (start, end), (body.label, k)
        own = message_frames(ctx.dialect, history[: ctx.inherited_count(body)])
        assert ctx.inherited_end(body) == min(body.history_start + sum(own), body.frame_count)


def _old_pairing(ctx: Context, body: Body) -> Finding:
    rule, history = "call-pairing", body.request.history
    calls: tuple[FunctionCall, ...] = ()
    for k, message in enumerate(history):
        if message.role == "system":
            continue
        responses = message.function_responses
        if message.role == "model" and responses:
            return _flag(ctx, rule, body, k, "is a model turn holding function responses")
        if message.role == "user" and not calls_answered(calls, responses, ctx.dialect):
            problem = (
                f"does not answer the calls before it one to one "
                f"(calls {_describe(calls)}, responses {_describe(responses)})"
            )
            return _flag(ctx, rule, body, k, problem)
        if message.role == "model" and calls:
            problem = f"follows calls {_describe(calls)} that were never answered"
            return _flag(ctx, rule, body, k, problem)
        calls = message.function_calls if message.role == "model" else ()
    if calls:
        return _flag(ctx, rule, body, len(history) - 1, "ends the request with open calls")
    total = sum(len(m.function_calls) for m in history)
    return Finding(rule, "pass", f"{body.label}: each of its {total} calls has one response")


def _old_args(ctx: Context, child: Body) -> Finding:
    calls = 0
    for k, (want, got) in enumerate(zip(ctx.inherited, child.request.history, strict=False)):
        calls += len(want.function_calls)
        pairs = zip(want.parts, got.parts, strict=False)
        redacted = next((w for w, g in pairs if _redacted(w, g)), None)
        if not isinstance(redacted, FunctionCall):
            continue
        return Finding("call-args-kept", "warning", f"{k} {redacted}")
    return Finding("call-args-kept", "pass", f"{calls}")


def _old_misplaced_at(ctx: Context, child: Body, task: str) -> int | None:
    history, span = child.request.history, ctx.inherited
    for k in range(min(len(history), len(span), ctx.inherited_count(child))):
        if _count(history[k], task) > _count(span[k], task):
            return k
    return None


def _old_directive_at(ctx: Context, index: int, child: Body) -> int | None:
    directive = ctx.task(index)
    if not directive:
        return None
    history = child.request.history
    counts = message_frames(ctx.dialect, history)
    start = min(ctx.inherited_count(child), len(history))
    first = child.history_start + sum(counts[:start])
    for k in range(start, len(history)):
        frames = child.frames_in(first, first + counts[k])
        first += counts[k]
        for part in history[k].parts if history[k].role == "user" else ():
            if not isinstance(part, Text) or not holds_task(part.text, directive):
                continue
            text, inner = encoded(part.text), encoded(part.text[: part.text.rfind(directive)])
            for frame in frames:
                at_ = frame.json.rfind(text)
                if at_ >= 0:
                    return json_start(frame) + at_ + len(inner)
    return None


def _alone(ctx: Context, body: Body) -> Finding:
    """``_pairing`` of a body with no history walked before it."""
    return _pairing(ctx, body, None)[0]


def _outcome(walk: Callable[[Context, Body], Finding], ctx: Context, body: Body) -> object:
    try:
        return walk(ctx, body)
    except Exception as e:  # a message no dialect renders alone: both walks must raise
        return type(e)


def _redact(message: Message, empty: object) -> Message:
    parts = tuple(
        replace(p, args=empty) if isinstance(p, FunctionCall) else p for p in message.parts
    )
    return Message(message.role, parts)


@settings(max_examples=150, deadline=None)
@given(
    _HISTORY,
    _HISTORY,
    st.integers(0, 8),
    st.lists(st.sampled_from([None, freeze({}), "keep"]), min_size=8, max_size=8),
)
def test_the_walks_that_skip_settled_messages_find_what_the_plain_walks_find(
    span: tuple[Message, ...],
    tail: tuple[Message, ...],
    cut: int,
    redactions: list[object],
) -> None:
    """In each dialect, on one scenario whose inherited span is the one drawn (so that
    what is remembered of a span's walk serves all of them, as in a check)."""
    go = Message("user", (Text("Fix the tokenizer."),))
    scenario = replace(BY_ID["fork-model-calls"], history=(*span, go))
    kept = zip(span[:cut], redactions, strict=False)
    history = tuple(m if r == "keep" else _redact(m, r) for m, r in kept) + tail
    # a sibling sharing the first's message objects up to a point (as a reader gives them)
    again = history[: len(redactions) // 2 + cut % 3] + span[cut:]
    for dialect in DIALECTS:
        _walks_agree(scenario, dialect, history, again)


def _walks_agree(
    scenario: Scenario,
    dialect: str,
    history: tuple[Message, ...],
    again: tuple[Message, ...],
) -> None:
    real = context(REFERENCE, "fork-model-calls", dialect)
    assert real.children
    span = inherited_span(scenario)
    child = replace(real.children[0], request=replace(real.children[0].request, history=history))
    other = replace(child, label="children[1]", request=replace(child.request, history=again))
    ctx = Context(scenario, real.dialect, real.outcome, real.parent, (child, other))
    assert ctx.inherited == span
    for body in (child, other):
        assert ctx.known_aligned(body) is None or body is other
        assert ctx.inherited_count(body) == _old_kept(span, body.request.history)
        run, shown = 0, body.request.history
        while run < min(len(span), len(shown)) and span[run] == shown[run]:
            run += 1
        assert ctx.aligned(body) == ctx.known_aligned(body) == run
        assert _outcome(_alone, ctx, body) == _outcome(_old_pairing, ctx, body)
    found = _args(ctx, child)
    plain = _old_args(ctx, child)
    assert found.status == plain.status
    if found.status == "pass":
        assert found.message.endswith(f"the {plain.message} inherited calls")
    else:
        assert f"inherited message {plain.message.split()[0]} " in found.message
    task = ctx.task(0)
    assert task
    _, _, where = _misplaced(ctx, child, task, _known_texts(ctx))
    k = _old_misplaced_at(ctx, child, task)
    if not where.startswith("the task text is in the "):  # not in the head
        assert (k is None) == (not where)
        assert k is None or f"inherited message {k} (" in where
    assert _outcome(lambda c, b: _directive_at(c, 0, b), ctx, child) == _outcome(
        lambda c, b: _old_directive_at(c, 0, b), ctx, child
    )


def test_segment_indexes_are_the_frames_indexes() -> None:
    for ctx, body in _contexts():
        for name in {s.name for s in body.stream.segments} | {"absent"}:
            assert ctx.segment_index(body, name) == body.frame_index(name), (body.label, name)


_TAILS: tuple[tuple[Message, ...], ...] = (
    (),
    (Message("model", (Text("done"),)), Message("user", (Text("next"),))),
    (
        Message("model", (FunctionCall("search", freeze({"q": "x"}), id="t1"),)),
        Message("user", (FunctionResponse("search", "r", id="t1"),)),
    ),
    (Message("model", (FunctionCall("search", freeze({"q": "x"}), id="t2"),)),),
    (
        Message("model", (FunctionCall("search", freeze({"q": "x"}), id="t3"),)),
        Message("user", (FunctionResponse("search", "r", id="zz"),)),
    ),
    (Message("user", (Text("again"),)),),
)


@pytest.mark.parametrize("scenario", ["continuable-follow-ups", "continuable-steered"])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_follow_up_of_the_very_messages_walked_pairs_as_a_walk_of_it_all(
    scenario: str, dialect: str
) -> None:
    """A follow-up whose history starts with the very messages of a body walked whole
    before it is walked from there on: every body's finding is the one a walk of its whole
    history gives, whatever the follow-ups append (calls answered, open, mispaired)."""
    real = context(REFERENCE, scenario, dialect)
    assert real.children
    child = real.children[0]
    for first, second in itertools.product(_TAILS, repeat=2):
        ups, history = [], child.request.history
        for i, tail in enumerate((first, second)):
            history = (*history, *tail)
            up = replace(child, label=f"follow_ups[{i}]")
            ups.append(replace(up, request=replace(child.request, history=history)))
        for before in ((), real.follow_ups):
            ctx = replace(real, children=(child,), follow_ups=(*before, *ups))
            bodies = (child, *ctx.follow_ups)
            each = [_outcome(_old_pairing, ctx, b) for b in bodies]
            if not all(isinstance(e, Finding) for e in each):
                continue  # a message no dialect renders alone
            walked = None
            for body, want in zip(bodies, each, strict=True):
                found, walked = _pairing(ctx, body, walked)
                assert found == want, body.label
            assert call_pairing(ctx) == combine("call-pairing", each, none="")  # type: ignore[arg-type]


def test_frames_of_a_family_are_the_bodys_own() -> None:
    """The frames the context finds by its index of families are the very frames
    ``Body.frames_of`` gives, in order, for every family (and none for one it lacks)."""
    for ctx, body in _contexts():
        for family in (*dict.fromkeys(body.families), "no-such-family"):
            mine = ctx.frames_of(body, family)  # type: ignore[arg-type]
            assert mine == body.frames_of(family)  # type: ignore[arg-type]
            assert all(a is b for a, b in zip(mine, body.frames_of(family), strict=True))  # type: ignore[arg-type]
            assert ctx.frames_of(body, family) == mine  # type: ignore[arg-type]
        other = replace(body, families=tuple(reversed(body.families)))
        assert ctx.frames_of(other, "history") == other.frames_of("history")
        assert ctx.frames_of(body, "history") == body.frames_of("history")  # not ``other``'s
