"""Rate limits per owner and per IP, with a deliberate choice when Redis cannot count."""

import pytest
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from accounts.ratelimit import Limit, over_limit, rate_limited

pytestmark = pytest.mark.django_db


def _limits(url):
    return override_settings(REDIS_CACHE_URL=url, WHIZI_RATE_LIMITS_ENABLED=True,
                             WHIZI_RATE_LIMITS={"test": (3, 5)})


def test_an_owner_over_the_limit_is_refused(private_redis):
    with _limits(private_redis.url):
        results = [over_limit(scope="t", owner_key="guest:a", ip="1.1.1.1",
                              limit=Limit(3, 100), fail_open=True) for _ in range(5)]
    assert results == [False, False, False, True, True]


def test_the_ip_limit_covers_many_owners(private_redis):
    with _limits(private_redis.url):
        results = [over_limit(scope="t", owner_key=f"guest:{i}", ip="2.2.2.2",
                              limit=Limit(100, 2), fail_open=True) for i in range(4)]
    assert results == [False, False, True, True]


def test_owners_are_counted_apart(private_redis):
    with _limits(private_redis.url):
        for _ in range(3):
            over_limit(scope="t", owner_key="guest:a", ip="3.3.3.3", limit=Limit(3, 100), fail_open=True)
        assert over_limit(scope="t", owner_key="guest:b", ip="3.3.3.3",
                          limit=Limit(3, 100), fail_open=True) is False


def test_redis_down_fails_open_or_closed_as_chosen(private_redis):
    private_redis.stop()
    with _limits(private_redis.url):
        assert over_limit(scope="t", owner_key="o", ip="i", limit=Limit(1, 1), fail_open=True) is False
        assert over_limit(scope="t", owner_key="o", ip="i", limit=Limit(1, 1), fail_open=False) is True


def _request():
    from django.contrib.auth.models import AnonymousUser
    from django.contrib.sessions.backends.db import SessionStore

    request = RequestFactory().post("/x/")
    request.user = AnonymousUser()
    request.session = SessionStore()
    return request


def test_the_decorator_answers_429_with_a_clear_message(private_redis):
    view = rate_limited("test", fail_open=True)(lambda request: HttpResponse("ok"))
    with _limits(private_redis.url):
        request = _request()
        codes = [view(request).status_code for _ in range(4)]
        refused = view(request)
    assert codes == [200, 200, 200, 429]
    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert b"Too many requests" in refused.content
