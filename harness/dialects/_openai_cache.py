"""OpenAI's prompt cache (chat completions and Responses alike), as its prompt-caching guide
describes it (docs/cache-model.md).

GPT-5.6 and later (and a model the facts do not know):
- in implicit mode (the default) a breakpoint sits at the end of the latest eligible message:
  a user message, the last tool response of a consecutive group, the last developer message of
  the initial consecutive group; explicit ``prompt_cache_breakpoint``s add their own; a
  request writes at most 4 entries, the implicit one among them;
- a lookup walks, longest first, only these boundaries: the first 2 and latest 50 explicit
  breakpoints, the implicit one, up to 20 earlier eligible message endings and the end of the
  initial developer block (in explicit-only mode, the explicit breakpoints alone);
- an entry holds at least 1,024 tokens; the cache is per model and routing key
  (``prompt_cache_key``), and keyed on the reasoning effort, service tier, verbosity,
  parallel tool calls and output format settings.

Earlier models match any prefix of at least 1,024 tokens, counted in whole 128-token blocks.

DeepSeek (its OpenAI-compatible chat) persists whole prefix units, at the end of each
request's input and of each model output: a request reads the longest unit it repeats whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._cache_facts import ModelFacts
from ._cache_plan import CachePlan, Write
from ._openai_facts import is_deepseek
from ._unit import Unit

__all__ = ["deepseek_plan", "family_plan", "legacy_model", "openai_plan"]

_WRITES: Final = 4
_FIRST_EXPLICIT: Final = 2
_LATEST_EXPLICIT: Final = 50
_EARLIER_ENDINGS: Final = 20
_TTL: Final = 1800.0
_LEGACY_BLOCK: Final = 128
_LEGACY: Final = re.compile(r"^(gpt-[34]|gpt-5(\.[0-5])?(-|$)|o[134](-|$)|chatgpt-)")
"""Models before GPT-5.6: implicit caching at model-dependent intervals only."""


def legacy_model(name: object) -> bool:
    """Whether ``name`` is an OpenAI model before GPT-5.6 (prefix matching in 128-token
    blocks, no lookup boundaries)."""
    return isinstance(name, str) and _LEGACY.match(name.rsplit("/", 1)[-1].lower()) is not None


def openai_plan(units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts) -> CachePlan:
    """The cache plan of an OpenAI request (either OpenAI dialect) read into ``units``."""
    if legacy_model(body.get("model")):
        every = tuple(range(len(units), 0, -1))
        return CachePlan(
            writes=(Write(len(units), _TTL),) if units else (),
            lookups=(every,),
            assumed=every,
            minimum=model.minimum_tokens,
            rounding=_LEGACY_BLOCK,
            notes=("a model before GPT-5.6: any prefix, counted in whole 128-token blocks",),
        )
    ends = [i + 1 for i, u in enumerate(units) if u.eligible]
    explicit = [i + 1 for i, u in enumerate(units) if u.marker is not None]
    developer = _initial_developer_end(units)
    options = body.get("prompt_cache_options")
    explicit_only = isinstance(options, dict) and options.get("mode") == "explicit"
    implicit = None if explicit_only or not ends else ends[-1]
    boundaries = set(explicit[:_FIRST_EXPLICIT] + explicit[-_LATEST_EXPLICIT:])
    assumed: list[int] = []
    if implicit is not None:
        earlier = [e for e in ends if e < implicit][-_EARLIER_ENDINGS:]
        boundaries.update([implicit, *earlier])
        if developer is not None:
            boundaries.add(developer)
        assumed = sorted({*earlier, *([developer] if developer is not None else [])})
    writes = explicit[-(_WRITES - (implicit is not None)) :] if explicit else []
    if implicit is not None:
        writes.append(implicit)
    notes = []
    if explicit_only and not explicit:
        notes.append("explicit-only mode without a breakpoint: no caching for this request")
    return CachePlan(
        writes=tuple(Write(p, _TTL) for p in sorted(set(writes))),
        lookups=(tuple(sorted(boundaries, reverse=True)),) if boundaries else (),
        assumed=tuple(assumed),
        minimum=model.minimum_tokens,
        caching=bool(writes),
        notes=tuple(notes),
    )


def family_plan(units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts) -> CachePlan:
    """The plan of a request on an OpenAI wire: DeepSeek's for a DeepSeek model (its
    OpenAI-compatible API), OpenAI's otherwise."""
    if is_deepseek(body.get("model")):
        return deepseek_plan(units, body, model)
    return openai_plan(units, body, model)


def deepseek_plan(units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts) -> CachePlan:
    """DeepSeek's prefix units: one at the end of the request's input; the conversation's
    earlier turns left one at each message end (the end of a user input or a model output)."""
    ends = [i + 1 for i, u in enumerate(units) if u.ends_message]
    everything = len(units)
    candidates = sorted({*ends, everything} - {0}, reverse=True)
    return CachePlan(
        writes=(Write(everything),) if everything else (),
        lookups=(tuple(candidates),) if candidates else (),
        assumed=tuple(e for e in ends if e < everything),
        minimum=model.minimum_tokens,
        notes=("DeepSeek: whole prefix units, at message ends",),
    )


def _initial_developer_end(units: Sequence[Unit]) -> int | None:
    """The position after the initial consecutive block of developer (or system) messages."""
    end = None
    for i, unit in enumerate(units):
        if unit.family in ("tools", "settings") or unit.message is None:
            continue
        if unit.role not in ("developer", "system"):
            break
        end = i + 1
    return end
