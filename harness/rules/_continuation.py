"""Bodies that continue a response stored on the provider (OpenAI Responses
``previous_response_id``), read as the provider reads them.

Such a body holds only its new input; the provider puts the continued request's input and
its answer ahead of it. A child may continue its parent's response: it is then judged as
that expansion, the parent's input and the model's answer (the scenario's) ahead of its own
input, with its own instructions and tools, which the provider does not inherit. Any other
body must be self-contained, since nothing in a scenario names what it would continue.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..dialects import Dialect
from ..model import Message, dumps
from ._body import Body

__all__ = ["resolve"]


def resolve(
    label: str,
    body: Mapping[str, Any],
    dialect: Dialect,
    parent: Body | None,
    answer: Sequence[Message] | None,
) -> bytes | str:
    """The continuation ``body`` to judge: its expansion against the parent (``answer`` is
    the model's answer to the parent's request; None where a body may not continue), or one
    sentence saying why it cannot be judged."""
    response = dialect.continued(body)
    if answer is None:
        return (
            f"{label} continues a stored response (previous_response_id {response!r}); only a"
            " child's first request may continue one, its parent's, so this body cannot be"
            " judged: send its whole input"
        )
    if parent is None:
        return f"{label} continues a stored response, but there is no parent body to continue"
    if parent.parsed.body.get("store") is False:
        return (
            f"{label} continues the parent's response (previous_response_id {response!r}), but"
            " the parent was sent with store: false, so the provider keeps nothing to continue"
        )
    try:
        return dumps(dialect.expand(body, parent.parsed.body, answer))
    except ValueError as e:  # a DialectError in the child's own input
        return f"{label} is not a request of the {dialect.name} dialect: {e}"
