"""A service that is down is reported once a minute with a count, not once per request.

With Redis down every chat message would otherwise log a warning (or a traceback) for
its pass publish, its rate limit and its cache writes: hundreds of lines a minute that
say one thing.
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("whizi.degraded")

REPORT_EVERY_SECONDS = 60.0
_lock = threading.Lock()
_last_report: dict[str, float] = {}
_since_report: dict[str, int] = {}


def degraded_note(service: str, what: str, exc: BaseException) -> None:
    """Note one failure of `service`; log it if nothing was logged for it this minute."""
    now = time.monotonic()
    with _lock:
        last = _last_report.get(service)
        if last is not None and now - last < REPORT_EVERY_SECONDS:
            _since_report[service] = _since_report.get(service, 0) + 1
            return
        _last_report[service] = now
        skipped = _since_report.pop(service, 0)
    log.warning("%s unavailable: %s failed (%s)%s", service, what, type(exc).__name__,
                f"; {skipped} more failure(s) since the last report" if skipped else "")
