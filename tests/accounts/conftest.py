import pytest
from django.test import Client

from accounts.owner import Owner
from tests.accounts.helpers import guest_of


@pytest.fixture
def guest_browser() -> tuple[Client, Owner]:
    """A browser that has been chatting as a guest."""
    browser = Client()
    return browser, guest_of(browser)
