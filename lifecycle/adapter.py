from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth import get_user_model
from django.db import DatabaseError

from accounts.locks import OwnerGone
from lifecycle.notices import SIGNUP_NOTICE_ATTRIBUTE

# allauth's notices that a sign-up's own one line replaces (lifecycle.signals).
_AFTER_SIGNUP = {"account/messages/logged_in.txt", "account/messages/email_confirmation_sent.txt"}


class AccountAdapter(DefaultAccountAdapter):
    """Hook point for the guest-to-account merge (see lifecycle.signals)."""

    def add_message(self, request, level, message_template=None, message_context=None,
                    extra_tags="", message=None) -> None:
        if getattr(request, SIGNUP_NOTICE_ATTRIBUTE, False) and message_template in _AFTER_SIGNUP:
            return
        super().add_message(request, level, message_template=message_template,
                            message_context=message_context, extra_tags=extra_tags, message=message)

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
