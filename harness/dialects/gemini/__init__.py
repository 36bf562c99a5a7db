"""Gemini ``generateContent`` bodies: ``contents`` of user/model parts, a
``systemInstruction``, ``tools[].functionDeclarations``, a ``toolConfig`` and a
``generationConfig``, camelCase as sent on the wire (docs/dialects.md).

One module per idea: ``_facts`` (what Google documents about the cache, with links),
``_prefix`` (the prefix segments), ``_settings``, ``_head`` (system instruction and
declarations), ``_parts`` (parts both ways), ``_read`` (a body into the neutral model),
``_render`` (the neutral model into a body), ``_detect``, ``_wire`` (the capture side), and
``_dialect``, which puts them together. Gemini has no cache markers.
"""

from ._dialect import DIALECT, GeminiDialect
from ._facts import FACTS
from ._wire import WIRE, GeminiWire

__all__ = ["DIALECT", "FACTS", "WIRE", "GeminiDialect", "GeminiWire"]
