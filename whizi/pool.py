"""The check a pooled PostgreSQL connection passes as it leaves the pool.

Django gives its pool psycopg_pool's own check (CONN_HEALTH_CHECKS), which discards one
broken connection per attempt and backs off 1, 2, 4 s between attempts: after a
PostgreSQL restart, with every pooled connection broken at once, the first requests wait
through the whole pool and may time out. Here one broken connection means a restart: the
rest of the pool is checked at once, and the request's next attempt gets a new one.
"""

from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool


def pool_connection_check(conn: Any) -> None:
    try:
        ConnectionPool.check_connection(conn)
    except Exception:
        pool = getattr(conn, "_pool", None)
        if pool is not None:
            pool.check()  # drops every broken idle connection and opens replacements
        raise


def pool_check_install(sender: Any, connection: Any, **kwargs: Any) -> None:
    """connection_created: give the process's pool this check (Django passes its pool only
    psycopg_pool's own, and no setting reaches it)."""
    pool = getattr(connection, "pool", None) if connection.vendor == "postgresql" else None
    if pool is not None and getattr(pool, "_check", None) is not pool_connection_check:
        pool._check = pool_connection_check
