"""OpenAI chat completions (``POST /v1/chat/completions``) as a dialect
(https://platform.openai.com/docs/api-reference/chat/create).

One module per idea: ``_facts`` (what OpenAI documents about the cache, with links),
``_prefix`` (the prefix segments), ``_settings``, ``_tools`` (declarations both ways),
``_parts`` (content parts both ways), ``_read`` (a body into the neutral model), ``_render``
(the neutral model into a body), ``_detect``, ``_wire`` (the capture side), and
``_dialect``, which puts them together. Chat completions have no cache markers.
"""

from ._dialect import DIALECT, OpenAIChat
from ._facts import FACTS
from ._wire import WIRE, OpenAIWire

__all__ = ["DIALECT", "FACTS", "WIRE", "OpenAIChat", "OpenAIWire"]
