"""pytest fixtures: one fake provider per session, reset and pointed at for each test."""

from collections.abc import Iterator

import pytest

from tests.fake_provider.server import FakeProvider, ProviderServer

FAKE_API_KEY = "sk-fake-provider"


@pytest.fixture(scope="session")
def fake_provider_server() -> Iterator[ProviderServer]:
    server = ProviderServer().start()
    yield server
    server.stop()


@pytest.fixture
def fake_provider(
    fake_provider_server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeProvider]:
    """The fake provider with no scripts; `openai/<name>` reaches it, here and in worker subprocesses.

    Set through the environment so a Celery worker started later in the test inherits it.
    """
    provider = fake_provider_server.provider.reset()
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_BASE", fake_provider_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_API_KEY)
    yield provider
    provider.reset()  # ends requests still hanging, so none outlives its test


@pytest.fixture(params=["lean", "litellm"])
def stream_path(request: pytest.FixtureRequest, settings) -> str:
    """Each test twice: streams read lean (whizi.llm.lean) and by litellm itself, so a
    difference in behaviour between the two fails a test."""
    settings.WHIZI_LEAN_STREAM = request.param == "lean"
    return request.param
