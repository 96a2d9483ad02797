"""The admin's login (/admin/login/) under the account login's limits: allauth's own.

Django's admin login calls authenticate() with no limit at all. Here it goes through
allauth's adapter instead, which counts every failure against ACCOUNT_RATE_LIMITS
"login_failed" (per account and per address) and refuses once over it, and the view
counts "login" (per address) as allauth's login page does: the same numbers, the same
counters and the same switch (WHIZI_RATE_LIMITS_ENABLED=false sets ACCOUNT_RATE_LIMITS
off). The count lives in the cache, which fails open while Redis is down (whizi.cache),
as the account login does: an outage never locks support staff out.
"""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import get_adapter
from allauth.decorators import rate_limit
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.forms.forms import NON_FIELD_ERRORS
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import method_decorator

# allauth's code for "Too many failed login attempts. Try again later."
LOCKED = "too_many_login_attempts"


def _credentials(login: str, password: str) -> dict[str, str]:
    """What allauth authenticates and counts: the account's address when the admin's
    username (or address) names an account that has one, so a failure here and one on
    the account login page count against the same account."""
    users = get_user_model().objects
    email = (users.filter(email__iexact=login).values_list("email", flat=True).first()
             or users.filter(username=login).values_list("email", flat=True).first())
    return {"username": login, "password": password, **({"email": email} if email else {})}


class AdminLoginForm(AdminAuthenticationForm):
    """Django's admin login form, authenticating through allauth's adapter (its limits)."""

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            # Raises the "too many failed login attempts" error once over the limit; a
            # right password rolls its own attempt back, as on the login page.
            self.user_cache = get_adapter(self.request).authenticate(
                self.request, **_credentials(username, password))
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class WhiziAdminSite(admin.AdminSite):
    login_form = AdminLoginForm

    @method_decorator(rate_limit(action="login"))
    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        response = super().login(request, extra_context)
        form = getattr(response, "context_data", {}).get("form")
        if form is not None and form.has_error(NON_FIELD_ERRORS, code=LOCKED):
            response.status_code = 429  # locked out: the form says why
        return response
