"""A fake OpenAI-protocol provider for tests and benchmarks; see server.py."""

from tests.fake_provider.server import (
    DEFAULT_TEXT,
    FakeProvider,
    FakeProviderClient,
    ProviderServer,
    reply_behaviour,
)

__all__ = ["DEFAULT_TEXT", "FakeProvider", "FakeProviderClient", "ProviderServer", "reply_behaviour"]
