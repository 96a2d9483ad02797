"""allauth hands over control here: a guest who signs up or logs in brings their guest
data into the account (lifecycle.guest_merge.guest_merge_into_user does the work).

Only the guest id kept server-side in the session counts: nothing the browser sends
(a cookie, a form field, a header) can name which guest is merged.
"""

from __future__ import annotations

from allauth.account.signals import user_logged_in, user_signed_up
from django.contrib import messages
from django.dispatch import receiver
from django.http import HttpRequest
from django.middleware.csrf import rotate_token

from accounts.owner import GUEST_SESSION_KEY, guest_id_in_session
from lifecycle.guest_merge import GuestMerge, guest_merge_into_user
from lifecycle.notices import SIGNUP_NOTICE_ATTRIBUTE, signup_notice


def _merge_guest_of_session(request: HttpRequest, user) -> GuestMerge | None:
    session = getattr(request, "session", None)
    if session is None:
        return None
    guest_id = guest_id_in_session(request)
    merge = None
    if guest_id is not None:
        merge = guest_merge_into_user(guest_id=guest_id, user_id=user.pk)
    # Forget the guest only after the merge committed: if it failed, the next login
    # from this browser tries again and nothing is lost.
    session.pop(GUEST_SESSION_KEY, None)
    if hasattr(request, "_whizi_owner"):
        del request._whizi_owner
    return merge


@receiver(user_signed_up, dispatch_uid="whizi_merge_guest_on_signup")
def merge_guest_on_signup(sender, request: HttpRequest, user, **kwargs) -> None:
    notice = signup_notice(_merge_guest_of_session(request, user), user_id=user.pk)
    if notice and getattr(request, "session", None) is not None:
        # One line says what came along; allauth's own notices after a sign-up are
        # left out then (lifecycle.adapter): the top bar already names the account.
        messages.success(request, notice)
        setattr(request, SIGNUP_NOTICE_ATTRIBUTE, True)
    # allauth logs the new account in next, and Django's login() rotates the session
    # key and the CSRF token again; rotating here too covers a signup that does not
    # log in (mandatory email verification), so the session that signed up is never
    # the one a planted cookie points at.
    if getattr(request, "session", None) is not None:
        request.session.cycle_key()
        rotate_token(request)


@receiver(user_logged_in, dispatch_uid="whizi_merge_guest_on_login")
def merge_guest_on_login(sender, request: HttpRequest, user, **kwargs) -> None:
    # Logging in to an existing account from a guest session merges the same way as
    # signing up: the facts a guest shared do not vanish behind a login.
    # Django's login() has already cycled the session key and rotated the CSRF token.
    _merge_guest_of_session(request, user)
