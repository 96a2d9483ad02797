"""The admin login (/admin/login/) shares the account login's limits: allauth's "failed
logins" per account and per address, and "logins" per address, with the configured
numbers, the same counters and the same switch; while Redis is down it fails open, as
the account login does.

Personas:
- support staff: logs in to the admin with a username (or their address) and password.
- attacker: guesses passwords at the admin login, for one account or many, from one
  address; after the configured number of failures gets a 429, even for a right guess.
"""

import pytest
from allauth.account import app_settings
from allauth.core.internal.ratelimit import parse_rates
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

PASSWORD = "a-long-pass-phrase"
LOCKED = b"Too many failed login attempts"


@pytest.fixture(autouse=True)
def _quick_password_checks(settings):
    # Each attempt checks a password (twice, with allauth's backend): the limits are
    # under test here, not the hasher's cost.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def limits(private_redis, settings):
    """allauth's limits at their configured numbers, counted in a Redis of the test's own."""
    settings.ACCOUNT_RATE_LIMITS = {}  # nothing overridden: allauth's defaults, as deployed
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": private_redis.url}}
    return private_redis


@pytest.fixture
def staff():
    return get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)


def _numbers() -> tuple[int, int]:
    """How many failed logins allauth allows per address and per account, as configured."""
    rates = {rate.per: rate.amount for rate in parse_rates(app_settings.RATE_LIMITS["login_failed"])}
    return rates["ip"], rates["key"]


def _admin_login(client: Client, username: str, password: str):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def test_wrong_passwords_for_one_account_lock_its_admin_login_even_against_the_right_one(limits, staff):
    _, per_account = _numbers()
    attacker = Client()

    failures = [_admin_login(attacker, "root", f"guess-{i}").status_code for i in range(per_account)]
    locked = _admin_login(attacker, "root", "guess-again")
    right = _admin_login(attacker, "root", PASSWORD)

    assert failures == [200] * per_account
    assert locked.status_code == 429 and LOCKED in locked.content
    assert right.status_code == 429 and LOCKED in right.content
    assert "_auth_user_id" not in attacker.session
    # Another address guessing the same account is refused too: the count is the account's.
    assert _admin_login(Client(REMOTE_ADDR="10.9.9.9"), "root", PASSWORD).status_code == 429


def test_failures_across_accounts_from_one_address_lock_the_address(limits, staff):
    per_address, per_account = _numbers()
    assert per_address > per_account  # else this test would meet the per-account limit first
    attacker = Client()

    failures = [_admin_login(attacker, f"user{i}", "guess").status_code for i in range(per_address)]
    locked = _admin_login(attacker, "root", PASSWORD)

    assert failures == [200] * per_address
    assert locked.status_code == 429 and LOCKED in locked.content
    assert _admin_login(Client(REMOTE_ADDR="10.9.9.9"), "root", PASSWORD).status_code == 302


def test_the_account_login_and_the_admin_login_count_one_account_together(limits, staff):
    _, per_account = _numbers()
    attacker = Client()
    for i in range(per_account):
        page = attacker.post("/accounts/login/", {"login": "root@example.com", "password": f"guess-{i}"})
        assert page.status_code == 200

    # The admin names the account by its username; the count is the same account's.
    assert _admin_login(Client(REMOTE_ADDR="10.9.9.9"), "root", PASSWORD).status_code == 429


def test_a_right_password_within_the_limit_logs_in_and_uses_no_attempt(limits, staff):
    _, per_account = _numbers()
    staff_browser = Client()
    for i in range(per_account - 1):
        _admin_login(staff_browser, "root", f"typo-{i}")

    logged_in = _admin_login(staff_browser, "root", PASSWORD)
    by_address = _admin_login(Client(), "root@example.com", PASSWORD)

    assert logged_in.status_code == 302 and logged_in["Location"] == "/admin/"
    assert by_address.status_code == 302  # the right password took none of the attempts left


def test_logins_per_address_are_limited_as_on_the_login_page(limits):
    per_address = {rate.per: rate.amount for rate in parse_rates(app_settings.RATE_LIMITS["login"])}["ip"]
    visitor = Client()

    answers = [visitor.post("/admin/login/", {}).status_code for _ in range(per_address + 1)]

    assert answers == [200] * per_address + [429]


def test_the_one_switch_turns_the_admin_limits_off_with_the_others(limits, staff, settings):
    per_address, _ = _numbers()
    settings.ACCOUNT_RATE_LIMITS = False  # what WHIZI_RATE_LIMITS_ENABLED=false sets
    attacker = Client()

    failures = {_admin_login(attacker, "root", f"guess-{i}").status_code for i in range(per_address + 2)}

    assert failures == {200}
    assert _admin_login(attacker, "root", PASSWORD).status_code == 302


def test_with_redis_down_the_admin_login_fails_open(limits, staff):
    per_address, per_account = _numbers()
    limits.stop()
    staff_browser = Client()

    failures = {_admin_login(staff_browser, "root", f"typo-{i}").status_code for i in range(per_address + 1)}
    logged_in = _admin_login(staff_browser, "root", PASSWORD)

    assert failures == {200}
    assert logged_in.status_code == 302
