"""python manage.py cleanup_guests: what the hourly beat task does, on demand."""

from django.conf import settings
from django.core.management.base import BaseCommand

from lifecycle.cleanup import guests_cleanup


class Command(BaseCommand):
    help = (
        "Delete guests not seen for longer than a session lives (SESSION_COOKIE_AGE), "
        "with everything they own, and expired sessions."
    )

    def handle(self, *args, **options):
        result = guests_cleanup()
        days = settings.SESSION_COOKIE_AGE / 86400
        self.stdout.write(f"Removed {result.guests} guests not seen for {days:g} days.")
        for label, count in sorted(result.removed.items()):
            if label != "accounts.Guest" and count:
                self.stdout.write(f"  {label}: {count}")
        if result.sessions is not None:
            self.stdout.write(f"Removed {result.sessions} expired sessions.")
