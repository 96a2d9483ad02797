from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth import get_user_model
from django.db import DatabaseError

from accounts.locks import OwnerGone


class AccountAdapter(DefaultAccountAdapter):
    """Hook point for the guest-to-account merge (see lifecycle.signals)."""

    def login(self, request, user) -> None:
        try:
            super().login(request, user)
        except DatabaseError:
            # Deleted between the password check and the sign-in (Django's last-login
            # update found no row): like any account that does not exist, a 404.
            if get_user_model().objects.filter(pk=user.pk).exists():
                raise
            request.session.flush()
            raise OwnerGone(f"account {user.pk} no longer exists") from None
