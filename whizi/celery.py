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


@signals.worker_init.connect
def _serve_worker_metrics(**kwargs) -> None:
    """WHIZI_WORKER_METRICS_PORT: this worker's metrics (every pool process's, through
    PROMETHEUS_MULTIPROC_DIR) for Prometheus, from the main process."""
    from django.conf import settings
    from prometheus_client import start_http_server

    from whizi.metrics import metrics_registry

    if settings.WHIZI_WORKER_METRICS_PORT:
        start_http_server(settings.WHIZI_WORKER_METRICS_PORT, addr=settings.WHIZI_WORKER_METRICS_ADDR,
                          registry=metrics_registry(scraped_gauges=False))


@signals.task_postrun.connect
def _task_counted(task=None, state: str | None = None, **kwargs) -> None:
    from whizi.metrics import metric_worker_task

    metric_worker_task(task=getattr(task, "name", "unknown"), state=state or "unknown")
