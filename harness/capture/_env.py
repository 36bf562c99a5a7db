"""The environment a program under capture runs with: every official SDK pointed at the
fake provider with a dummy key, so nothing it sends can reach a real provider or bill a
real account."""

from __future__ import annotations

from collections.abc import Mapping

from ..dialects import wires

__all__ = ["FAKE_API_KEY", "child_environment", "provider_environment"]

FAKE_API_KEY = "sk-prefix-harness-fake"
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def provider_environment(origin: str) -> dict[str, str]:
    """The variables that point every registered dialect's SDKs (the OpenAI, Anthropic and
    Google Gen AI SDKs, and programs built on them) at the fake provider whose origin is
    ``http://127.0.0.1:PORT``: each wire's own (``Wire.environment``), with a dummy key,
    then ``PREFIX_HARNESS_CAPTURE_URL``, the origin itself."""
    env: dict[str, str] = {}
    for wire in wires().values():
        env.update(wire.sdk_environment(origin, FAKE_API_KEY))
    env["PREFIX_HARNESS_CAPTURE_URL"] = origin
    return env


def child_environment(origin: str, base: Mapping[str, str]) -> dict[str, str]:
    """``base`` with the provider variables set and loopback added to ``NO_PROXY`` and
    ``no_proxy``, so that a proxy configured for the machine is not asked to reach it."""
    env = dict(base)
    env.update(provider_environment(origin))
    for name in ("NO_PROXY", "no_proxy"):
        present = [h.strip() for h in env.get(name, "").split(",") if h.strip()]
        env[name] = ",".join(present + [h for h in _LOOPBACK_HOSTS if h not in present])
    return env
