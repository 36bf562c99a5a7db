"""Anthropic messages (``POST /v1/messages``): tools, system and messages in cache order,
with ``cache_control`` markers audited apart from the prefix bytes.

One module per idea: ``_facts`` (what Anthropic documents about its cache, with links),
``_prefix`` (the prefix segments), ``_markers``, ``_settings``, ``_head`` (system and tools),
``_parts`` (content blocks both ways), ``_read`` (a body into the neutral model),
``_render`` (the neutral model into a body), ``_detect``, ``_wire`` (the capture side), and
``_dialect``, which puts them together.
"""

from ._dialect import DIALECT, AnthropicDialect
from ._facts import FACTS
from ._wire import WIRE, AnthropicWire

__all__ = ["DIALECT", "FACTS", "WIRE", "AnthropicDialect", "AnthropicWire"]
