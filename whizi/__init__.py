from whizi.offline_env import configure_offline_env

# Before anything imports tiktoken or litellm (settings, the Celery app, tests).
configure_offline_env()

from whizi.celery import app as celery_app  # noqa: E402

__all__ = ["celery_app"]
