import pytest
from django.test import Client

from accounts.owner import Owner
from tests.lifecycle.helpers import guest_of


@pytest.fixture(autouse=True)
def _no_signup_rate_limit(settings):
    # Every test browser is 127.0.0.1, and allauth keeps its per-IP signup and login
    # counters in the shared Redis cache across runs: two runs within a minute would
    # exceed "20 signups a minute" and get 429s that have nothing to do with the test.
    settings.ACCOUNT_RATE_LIMITS = False


@pytest.fixture
def guest_browser() -> tuple[Client, Owner]:
    """A browser that has been chatting as a guest."""
    browser = Client()
    return browser, guest_of(browser)
