"""Cache entries that belong to one memory owner, and how they are all removed.

Memory itself is never cached (the database row is the only copy), but anything else
an app caches per owner must be named with `owner_cache_key`, so that deleting an
account or an abandoned guest can find and delete it. Django's RedisCache has no
`delete_pattern`, so removal scans the cache database for the owner's prefix.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import redis
from django.conf import settings
from django.core.cache import cache

from accounts.owner import Owner
from whizi.redis import redis_client

log = logging.getLogger(__name__)

# Keys deleted per round trip: SCAN returns about this many names per call, and one
# DELETE of 500 keys stays well under a millisecond of Redis time.
_BATCH = 500


class OwnerCacheUnavailable(Exception):
    """The cache could not be reached, so an owner's cache entries may still be there."""


def owner_cache_key(owner: Owner, name: str) -> str:
    """The cache key for `name` of this owner (pass it to django.core.cache as is)."""
    return f"owner:{owner.key}:{name}"


def owner_cache_delete(*, owners: Iterable[Owner]) -> int:
    """Delete every cache entry of these owners; return how many were removed.

    One owner: scan its own prefix. Many owners (the guest sweep): one scan over all
    owner keys, keeping those of the given owners, rather than one full scan each.
    Raises OwnerCacheUnavailable when Redis cannot be reached.
    """
    owners = list(owners)
    if not owners:
        return 0
    # make_key with version "*" gives "<KEY_PREFIX>:*:<key>", matching every version.
    if len(owners) == 1:
        pattern = cache.make_key(f"owner:{owners[0].key}:*", version="*")
        wanted = None
    else:
        pattern = cache.make_key("owner:*", version="*")
        wanted = {owner.key for owner in owners}
    removed = 0
    try:
        client = redis_client(url=settings.CACHES["default"]["LOCATION"], connect_timeout=2, timeout=5)
        batch: list[bytes] = []
        for raw in client.scan_iter(match=pattern, count=_BATCH):
            if wanted is not None and _owner_key_of(raw) not in wanted:
                continue
            batch.append(raw)
            if len(batch) >= _BATCH:
                removed += client.delete(*batch)
                batch = []
        if batch:
            removed += client.delete(*batch)
    except redis.RedisError as exc:
        log.warning("owner cache delete failed: %s", type(exc).__name__)
        raise OwnerCacheUnavailable from exc
    return removed


def _owner_key_of(raw: bytes) -> str | None:
    """'whizi:1:owner:guest:<uuid>:name' -> 'guest:<uuid>'."""
    parts = raw.decode("utf-8", "replace").split(":")
    try:
        at = parts.index("owner")
    except ValueError:
        return None
    if len(parts) < at + 3:
        return None
    return f"{parts[at + 1]}:{parts[at + 2]}"
