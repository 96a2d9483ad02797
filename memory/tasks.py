"""Celery tasks for memory: thin, ids in; the work is in memory.pipeline."""

from celery import shared_task


@shared_task(name="memory.run_pass", acks_late=True)
def run_memory_pass_task(pass_id: int) -> None:
    from memory.pipeline import pass_run

    pass_run(pass_id=pass_id)
