"""The cache degrades when Redis is down: misses and dropped writes, never an error page."""

import pytest
from django.test import override_settings

from whizi.cache import ResilientRedisCache

pytestmark = pytest.mark.slow

def _cache_at(url: str) -> ResilientRedisCache:
    return ResilientRedisCache(url, {"OPTIONS": {"socket_connect_timeout": 0.3, "socket_timeout": 0.3}})


def test_it_is_a_normal_cache_while_redis_is_up(private_redis):
    cache = _cache_at(private_redis.url)
    cache.set("k", "v", 30)
    assert cache.get("k") == "v"
    assert cache.add("k", "other") is False
    assert cache.add("n", 0) is True
    assert cache.incr("n") == 1
    assert cache.delete("k") is True


def test_it_misses_instead_of_failing_when_redis_is_down(private_redis):
    cache = _cache_at(private_redis.url)
    cache.set("k", "v", 30)
    private_redis.stop()
    assert cache.get("k", "fallback") == "fallback"
    cache.set("k", "new")  # dropped, no exception
    assert cache.add("k", "v") is True  # "go ahead": nothing is stored
    assert cache.get("k") is None
    assert cache.get_many(["k"]) == {}
    with pytest.raises(ValueError):
        cache.incr("k")


@pytest.mark.django_db
def test_login_page_works_with_redis_down(client, private_redis):
    private_redis.stop()
    location = private_redis.url.replace("/0", "/1")
    with override_settings(CACHES={"default": {
        "BACKEND": "whizi.cache.ResilientRedisCache", "LOCATION": location,
        "OPTIONS": {"socket_connect_timeout": 0.3, "socket_timeout": 0.3},
    }}):
        response = client.post("/accounts/login/", {"login": "x@example.com", "password": "nope-nope"})
    assert response.status_code == 200  # the form with its error, not a 500
