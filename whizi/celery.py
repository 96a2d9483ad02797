import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

app = Celery("whizi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="whizi.ping", acks_late=True)
def ping(token: str) -> None:
    """Health check: proves a worker took a task off the broker and reached Redis."""
    from django.core.cache import cache

    cache.set(f"ping:{token}", "pong", timeout=60)
