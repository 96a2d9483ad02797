"""allauth and Django hand over control here: a guest who signs up brings their guest
data into the new account (lifecycle.guest_merge.guest_merge_into_user); logging in to
an account that already exists only offers it (lifecycle.guest_offer), and logging out
deletes an offer nobody answered.

Only the guest id kept server-side in the session counts: nothing the browser sends
(a cookie, a form field, a header) can name which guest is merged or offered.
"""

from __future__ import annotations

from allauth.account.signals import user_logged_in, user_signed_up
from django.contrib import messages
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.http import HttpRequest
from django.middleware.csrf import rotate_token

from accounts.owner import GUEST_SESSION_KEY, guest_id_in_session
from lifecycle.cleanup import guest_delete
from lifecycle.guest_merge import guest_merge_into_user
from lifecycle.guest_offer import guest_offer_contents, guest_offer_forget, guest_offer_keep, guest_offered
from lifecycle.notices import SIGNUP_NOTICE_ATTRIBUTE, signup_notice
from memory.services import MemoryUnavailable


def _session_guest_forget(request: HttpRequest) -> None:
    request.session.pop(GUEST_SESSION_KEY, None)
    if hasattr(request, "_whizi_owner"):
        del request._whizi_owner


@receiver(user_signed_up, dispatch_uid="whizi_merge_guest_on_signup")
def merge_guest_on_signup(sender, request: HttpRequest, user, **kwargs) -> None:
    if getattr(request, "session", None) is None:
        return
    guest_id = guest_id_in_session(request)
    merge = guest_merge_into_user(guest_id=guest_id, user_id=user.pk) if guest_id is not None else None
    # Forget the guest only after the merge committed: if it failed, the next try from
    # this browser merges it and nothing is lost.
    _session_guest_forget(request)
    notice = signup_notice(merge, user_id=user.pk)
    if notice:
        # One line says what came along; allauth's own notices after a sign-up are
        # left out then (lifecycle.adapter): the top bar already names the account.
        messages.success(request, notice)
        setattr(request, SIGNUP_NOTICE_ATTRIBUTE, True)
    # allauth logs the new account in next, and Django's login() rotates the session
    # key and the CSRF token again; rotating here too covers a signup that does not
    # log in (mandatory email verification), so the session that signed up is never
    # the one a planted cookie points at.
    request.session.cycle_key()
    rotate_token(request)


@receiver(user_logged_in, dispatch_uid="whizi_offer_guest_on_login")
def offer_guest_on_login(sender, request: HttpRequest, user, **kwargs) -> None:
    # Logging in to an account someone already has is not creating one: on a shared
    # computer, or with a planted cookie, the guest is someone else. Nothing moves; the
    # session offers the guest to this account until they answer. A signup has merged
    # its guest already (user_signed_up comes first), so there is none left here.
    # Django's login() has already cycled the session key and rotated the CSRF token,
    # keeping the session's data.
    if getattr(request, "session", None) is None:
        return
    guest_id = guest_id_in_session(request)
    _session_guest_forget(request)
    if guest_id is None:
        return
    try:
        offer = guest_offer_contents(guest_id=guest_id)
    except MemoryUnavailable:
        offer = None  # its list could not be read: offer it, the page reads it again
    else:
        if offer is None:
            return  # merged or swept meanwhile
        if offer.is_empty:
            guest_delete(guest_id=guest_id)  # nothing to ask about: dropped, as a merge would
            return
    guest_offer_keep(request, guest_id=guest_id, user_id=user.pk)


@receiver(user_logged_out, dispatch_uid="whizi_discard_guest_offer_on_logout")
def discard_guest_offer_on_logout(sender, request: HttpRequest, user, **kwargs) -> None:
    # Logging out ends the session that held the offer: the guest goes with it, so the
    # next person at a shared computer finds neither the guest nor its data.
    if getattr(request, "session", None) is None or user is None:
        return
    guest_id = guest_offered(request)
    guest_offer_forget(request)
    if guest_id is not None:
        guest_delete(guest_id=guest_id)
