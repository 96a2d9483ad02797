"""Celery tasks for accounts: thin; the work is in accounts.services."""

from celery import shared_task


@shared_task(name="accounts.cleanup_abandoned_guests", acks_late=True)
def cleanup_abandoned_guests_task() -> int:
    """Beat: delete guests whose session has expired, with everything they own."""
    from accounts.services import guests_cleanup

    return guests_cleanup().guests
