"""A Responses body read into the neutral model.

- ``instructions`` is the first system block; a leading run of ``system``/``developer``
  message items of text only adds one block per text (both kept as sent in
  ``Settings.extra["openai-responses"]["system_items"]`` when they would render back
  otherwise); a later one is a neutral ``system`` message;
- consecutive model-side items (``reasoning``, assistant ``message``, ``function_call``,
  ``custom_tool_call``, any other item type not ending in ``_output``) form one ``model``
  message: reasoning -> Thinking (summary texts, ``encrypted_content`` as its signature),
  ``output_text`` -> Text, calls -> FunctionCall (``call_id`` as the id; a custom call, or a
  call's ``namespace``, the tool group it names, in its ``Extra``);
- ``function_call_output`` / ``custom_tool_call_output`` items (and other ``*_output`` items)
  with the user message right after them form one neutral user message;
- an item or a content part the neutral model has no name for is an ``Opaque`` part holding
  it verbatim; every neutral message keeps the items it was read from as its
  ``Message.source``. Breakpoints become ``Request.cache_breakpoints`` (segment names).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from ...model import (
    Extra,
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Json,
    Message,
    Opaque,
    Part,
    Preset,
    Request,
    Role,
    Thinking,
    freeze,
    join_path,
)
from .._openai_reading import arguments, field, obj, string
from ._facts import NAME, SYSTEM_ROLES
from ._markers import marked_blocks, unmarked
from ._parts import content_parts, texts
from ._prefix import checked_kind, envelope, kind, kinded
from ._settings import read_settings
from ._tools import read_tools

__all__ = ["SYSTEM_KEPT", "history", "leading_count", "read_request", "render_system"]

SYSTEM_KEPT: Final = "system_items"
"""Reserved ``extra`` key: ``instructions`` and the leading system items as sent
(``"instructions"``, ``"items"``), when they would render back otherwise, with the system
blocks they were read as (``"system"``): render sends them while the preset's system is
still those blocks."""
_CALL_TYPES: Final = ("function_call", "custom_tool_call")
OUTPUT_TYPES: Final = ("function_call_output", "custom_tool_call_output")


def read_request(body: Mapping[str, Any]) -> Request:
    """The body in the neutral model; ``DialectError`` names the path of a bad part."""
    items, kinds = kinded(envelope(body))
    instructions = body.get("instructions")
    system, found = history(items, instructions if isinstance(instructions, str) else None, kinds)
    tools, tool_extras = read_tools(body.get("tools") or ())
    settings = read_settings(body, tool_extras)
    leading = items[: leading_count(items)]
    if render_system(system) != (body.get("instructions"), leading):
        sent = {"instructions": body.get("instructions"), "items": freeze(leading)}
        kept = FrozenDict({"system": system, **sent})
        settings = settings.with_extra(NAME, {SYSTEM_KEPT: kept})
    names = tuple(dict.fromkeys(segment for segment, _, _ in marked_blocks(body)))
    return Request(Preset(system=system, tools=tools, settings=settings), found, names)


def render_system(system: Sequence[str]) -> tuple[str | None, list[Any]]:
    """The system as the body says it plainly: the first block as ``instructions``, the
    others as one developer message."""
    if not system:
        return None, []
    rest = [{"type": "input_text", "text": block} for block in system[1:]]
    return system[0], ([{"type": "message", "role": "developer", "content": rest}] if rest else [])


def _is_system_text(item: Any) -> bool:
    """A system/developer message of text only: a system block (or blocks)."""
    if not isinstance(item, dict) or kind(item) != "message":
        return False
    if item.get("role") not in SYSTEM_ROLES:
        return False
    content = item.get("content")
    return isinstance(content, str) or (
        isinstance(content, list)
        and all(isinstance(p, dict) and p.get("type") == "input_text" for p in content)
    )


def leading_count(items: list[Any]) -> int:
    """How many leading items are system/developer messages of text only (the system)."""
    k = 0
    while k < len(items) and _is_system_text(items[k]):
        k += 1
    return k


def _side(found: str, item: dict[str, Any]) -> Literal["model", "user", "message"]:
    """Whose an item is: the model's (calls, reasoning, unknown items), the user's (tool
    outputs), or a message (by its role)."""
    if found == "message":
        return "model" if item.get("role") == "assistant" else "message"
    if found in OUTPUT_TYPES or found.endswith("_output"):
        return "user"
    return "model"


def history(
    items: list[Any], instructions: str | None = None, kinds: list[str] | None = None
) -> tuple[tuple[str, ...], tuple[Message, ...]]:
    """The system blocks and the neutral history, each message with the items it was read
    from as its source (``kinds``: each item's checked type, when known)."""
    system: list[str] = [] if instructions is None else [instructions]
    out: list[Message] = []
    model: list[Part] = []
    pending: list[Part] = []
    run: list[Any] = []
    names: dict[str, str] = {}
    start = leading_count(items)

    def done(role: Role, parts: Sequence[Part]) -> None:
        out.append(Message.read(NAME, run, role, tuple(parts)))
        run.clear()

    for k in range(start):
        system.extend(texts(items[k].get("content"), f"input[{k}].content"))
    for k in range(start, len(items)):
        item, path = items[k], f"input[{k}]"
        found = checked_kind(item, k) if kinds is None else kinds[k]
        side = _side(found, item)
        if side != "model" and model:
            done("model", model)
            model = []
        if pending and (side == "model" or (side == "message" and item.get("role") != "user")):
            done("user", pending)  # the outputs before a model item or a system message
            pending = []
        run.append(item)
        if side == "model":
            model.extend(_model_parts(found, item, path, names))
        elif side == "user":
            pending.append(_output(found, item, path, names))
        elif item.get("role") == "user":  # a message's parts, as a model message's read
            done("user", [*pending, *_model_parts(found, item, path, names)])
            pending = []
        else:
            done("system", _model_parts(found, item, path, names))
    if model:
        done("model", model)
    if pending:
        done("user", pending)
    return tuple(system), tuple(out)


def _model_parts(found: str, item: dict[str, Any], path: str, names: dict[str, str]) -> list[Part]:
    """The parts of one model-side item; the names of its calls go to ``names``. A
    message's parts are its content's, whoever's it is."""
    if found == "message":
        return list(content_parts(item.get("content"), f"{path}.content"))
    if found == "reasoning":
        return [_reasoning(item, path)]
    if found in _CALL_TYPES:
        call = _call(found, item, path)
        if call.id is not None:
            names[call.id] = call.name
        return [call]
    return [Opaque(found, freeze(item), NAME)]


def _reasoning(item: dict[str, Any], path: str) -> Thinking:
    """Summary texts joined by blank lines, ``encrypted_content`` as the signature; a
    reasoning item with no text at all but encrypted content is redacted thinking."""
    summary = field(item, "summary", (list,), "an array", path) or ()
    found = [
        str(string(obj(s, join_path(path, "summary", i)), "text", path, required=True))
        for i, s in enumerate(summary)
    ]
    encrypted = string(item, "encrypted_content", path)
    return Thinking("\n\n".join(found), encrypted, redacted=not found and encrypted is not None)


def _call(found: str, item: dict[str, Any], path: str) -> FunctionCall:
    """A function call (arguments decoded when they hold JSON) or a custom call (its input
    string, with its ``Extra`` saying it is custom)."""
    name = str(string(item, "name", path, required=True))
    call_id = string(item, "call_id", path)
    if found == "custom_tool_call":
        return FunctionCall(
            name=name,
            args=string(item, "input", path) or "",
            id=call_id,
            extra=Extra(NAME, FrozenDict({"type": "custom"})),
        )
    raw = field(item, "arguments", (str,), "a JSON string", path, required=True)
    namespace = string(item, "namespace", path)
    extra = None if namespace is None else Extra(NAME, FrozenDict({"namespace": namespace}))
    return FunctionCall(name=name, args=arguments(raw), id=call_id, extra=extra)


def _output(found: str, item: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    """A tool output (its function name from the call with the same ``call_id``); another
    ``*_output`` item as Opaque."""
    if found not in OUTPUT_TYPES:
        return Opaque(found, freeze(unmarked(item)), NAME)
    call_id = string(item, "call_id", path)
    output = field(item, "output", (str, list), "a string or an array of parts", path)
    response: Json = output if isinstance(output, str) else freeze(unmarked(item)["output"] or [])
    extra = Extra(NAME, FrozenDict({"type": "custom"})) if found != OUTPUT_TYPES[0] else None
    return FunctionResponse(
        name=names.get(call_id or "", ""), response=response, id=call_id, extra=extra
    )
