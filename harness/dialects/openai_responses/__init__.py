"""OpenAI Responses (``POST /v1/responses``) as a dialect: what codex and the Agents SDK send
(https://platform.openai.com/docs/api-reference/responses/create).

One module per idea: ``_facts`` (what OpenAI documents about the cache and its breakpoints,
with links), ``_prefix`` (the prefix segments), ``_markers`` (breakpoints), ``_settings``,
``_tools`` (declarations both ways), ``_parts`` (content parts both ways), ``_read`` (a body
into the neutral model), ``_render`` (the neutral model into a body), ``_continue``
(``previous_response_id``), ``_detect``, ``_wire`` (the capture side), and ``_dialect``,
which puts them together.
"""

from ._dialect import DIALECT, OpenAIResponses
from ._facts import FACTS
from ._wire import WIRE, OpenAIResponsesWire

__all__ = ["DIALECT", "FACTS", "WIRE", "OpenAIResponses", "OpenAIResponsesWire"]
