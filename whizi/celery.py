import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

app = Celery("whizi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="whizi.ping", acks_late=True)
def ping(token: str) -> None:
    """Health check: proves a worker took a task off the broker and reached Redis."""
    from django.core.cache import cache

    cache.set(f"ping:{token}", "pong", timeout=60)


@signals.worker_init.connect
def _load_models_before_the_first_pass(**kwargs) -> None:
    """Import litellm and register our providers in the worker's main process, before
    the pool forks, so no memory pass pays the ~2.5 s import (and no pool child spends
    it inside Celery's 4 s start-up allowance)."""
    from whizi.llm import litellm_module

    litellm_module()
