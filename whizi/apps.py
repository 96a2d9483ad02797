import logging

from django.apps import AppConfig
from django.db.backends.signals import connection_created


class WhiziConfig(AppConfig):
    """The project package as an app, only to hook in at start-up: its system checks
    (whizi.checks) and the pooled connection check (whizi.pool). It has no models and
    imports no other app."""

    name = "whizi"

    def ready(self) -> None:
        from whizi import checks  # noqa: F401 - registers the checks
        from whizi.pool import pool_check_install

        connection_created.connect(pool_check_install, dispatch_uid="whizi.pool_check_install")
        # A library's warning is a log line like any other (one JSON object under
        # WHIZI_LOG_FORMAT=json), not a bare line on stderr.
        logging.captureWarnings(True)
