"""The environment given to a program under capture."""

from __future__ import annotations

from harness.capture import FAKE_API_KEY, child_environment, provider_environment


def test_provider_environment_points_every_sdk_at_the_fake() -> None:
    env = provider_environment("http://127.0.0.1:5")
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1"
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:5"
    assert env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:5"
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        assert env[key] == FAKE_API_KEY == "sk-prefix-harness-fake"
    assert env["GOOGLE_GENAI_USE_VERTEXAI"] == "false"


def test_child_environment_overrides_real_keys_and_bypasses_proxies() -> None:
    base = {"OPENAI_API_KEY": "sk-real", "PATH": "/bin", "NO_PROXY": "example.org, localhost"}
    env = child_environment("http://127.0.0.1:5", base)
    assert env["OPENAI_API_KEY"] == FAKE_API_KEY
    assert env["PATH"] == "/bin"
    assert env["NO_PROXY"] == "example.org,localhost,127.0.0.1,::1"
    assert env["no_proxy"] == "127.0.0.1,localhost,::1"
    assert base["OPENAI_API_KEY"] == "sk-real"
