import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

app = Celery("whizi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The message header that carries the publishing request's id into the task (whizi.logs).
REQUEST_ID_HEADER = "whizi_request_id"


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


@signals.setup_logging.connect
def _logging_from_settings(loglevel: int | None = None, **kwargs) -> None:
    """The worker and beat log through Django's LOGGING (whizi.logs), like the web: the same
    format, and the request's and task's ids on every line. Celery's --loglevel still sets
    the level."""
    import logging
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger().setLevel(loglevel)


@signals.before_task_publish.connect
def _request_id_into_the_task(headers: dict | None = None, **kwargs) -> None:
    from whizi.logs import log_context_get

    request_id = log_context_get("request_id")
    if request_id and headers is not None:
        headers.setdefault(REQUEST_ID_HEADER, request_id)


_log_tokens: dict[str, object] = {}


@signals.task_prerun.connect
def _task_log_context(task_id: str | None = None, task=None, **kwargs) -> None:
    from whizi.logs import log_context_bind

    request_id = getattr(task.request, REQUEST_ID_HEADER, None) if task is not None else None
    _log_tokens[task_id] = log_context_bind(task_id=task_id, request_id=request_id)


@signals.task_postrun.connect
def _task_done(task_id: str | None = None, task=None, state: str | None = None, **kwargs) -> None:
    from whizi.logs import log_context_reset
    from whizi.metrics import metric_worker_task

    token = _log_tokens.pop(task_id, None)
    if token is not None:
        log_context_reset(token)
    metric_worker_task(task=getattr(task, "name", "unknown"), state=state or "unknown")
