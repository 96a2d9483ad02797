"""Celery tasks for the account lifecycle: thin; the work is in lifecycle.cleanup."""

from celery import shared_task


# The task keeps its first name, so a message already queued under it still runs.
@shared_task(name="accounts.cleanup_abandoned_guests", acks_late=True)
def cleanup_abandoned_guests_task() -> int:
    """Beat: delete guests whose session has expired, with everything they own, and the
    expired sessions."""
    from lifecycle.cleanup import guests_cleanup

    return guests_cleanup().guests
