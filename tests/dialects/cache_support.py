"""Hand-built units and model facts for the cache models' and the simulator's tests."""

from __future__ import annotations

from dataclasses import replace

from harness.dialects import CachePlan, Keyed, ModelFacts, Prices, Source, Unit
from harness.prefix._simulate import CacheSimulator, Usage

_SOURCE = Source("https://example.org/guide", "a guide", "2026-12-01")


def facts(minimum: int = 0) -> ModelFacts:
    return ModelFacts("", "test", minimum, 4.0, Prices(1.0, 0.1), _SOURCE)


def blocks(count: int, *, marked: tuple[int, ...] = (), text: str = "b") -> list[Unit]:
    """``count`` one-block user messages (Anthropic-like), markers on the blocks ``marked``."""
    out = []
    for k in range(count):
        value = {"text": f"{text}{k}", "type": "text"}
        out.append(
            Unit(
                f"messages[{k}].content[0]",
                f"messages[{k}].content",
                "history",
                value,
                f"{value}".encode(),
                block=k,
                message=k,
                role="user",
                ends_message=True,
                eligible=True,
                marker={"type": "ephemeral"} if k in marked else None,
            )
        )
    return out


def send(sim: CacheSimulator, units: list[Unit], plan: CachePlan, per_unit: int = 100) -> Usage:
    tokens = [per_unit * i for i in range(len(units) + 1)]
    return sim.send([u.data for u in units], tokens, plan)


def keyed(plan: CachePlan, **settings: str) -> CachePlan:
    """``plan`` keyed on ``settings`` for the whole request (as a model or a routing key is);
    ``tool_choice`` from the first unit on, as Anthropic keys it from the messages (the
    units here are all messages)."""
    out = tuple(
        Keyed(name, f'"{value}"'.encode(), 1 if name == "tool_choice" else 0)
        for name, value in settings.items()
    )
    return replace(plan, keyed=out)
