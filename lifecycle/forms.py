from typing import Any

from allauth.account import forms as allauth_forms
from allauth.account import views as allauth_views
from allauth.account.adapter import get_adapter
from allauth.account.internal import flows
from allauth.account.models import Login
from allauth.core import context as allauth_context
from allauth.core.exceptions import ImmediateHttpResponse
from django import forms
from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

from accounts.preferences import chat_models
from lifecycle.reset import account_password_reset
from whizi.llm import model_display_name


class PreferencesForm(forms.Form):
    language = forms.ChoiceField(label=_("Language"), required=False)
    chat_model = forms.ChoiceField(label=_("Default chat model"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Languages are named in their own language, so anyone can find theirs.
        self.fields["language"].choices = [("", _("Follow the browser")), *settings.LANGUAGES]
        self.fields["chat_model"].choices = [(model, model_display_name(model)) for model in chat_models()]


class SignupForm(allauth_forms.SignupForm):
    """allauth's signup, safe when two signups race for one address.

    The database holds one account per address, whatever its case
    (accounts/migrations/0005). allauth checks the address before it saves, so two
    signups at the same moment both pass that check; the one whose insert loses gets
    allauth's own "already registered" answer instead of a server error. A form sent
    twice by the same person (a double click, a retry) logs them in to the account the
    first copy created, when its password opens it.
    """

    _holder: Any = None  # the existing account this form's password opens

    def clean(self) -> dict:
        cleaned = super().clean()
        holder = self._account_opened_by_form()
        if holder is not None:
            del self._errors["email"]
            self.cleaned_data["email"] = holder.email
            self._holder = holder
        return cleaned

    def try_save(self, request: HttpRequest):
        if self._holder is not None:
            return None, _log_in(request, self._holder)
        for _attempt in range(_SAVE_ATTEMPTS):
            try:
                # The user and its address in one transaction: a loser leaves neither.
                with transaction.atomic():
                    return super().try_save(request)
            except IntegrityError:
                # Check again now that the winner has committed: allauth either refuses
                # the address (email_taken) or, preventing enumeration, answers as if
                # signing up worked and mails the owner (account_already_exists).
                try:
                    self.validate_unique_email(self.cleaned_data["email"])
                except forms.ValidationError as taken:
                    self.add_error("email", taken)
                    holder = self._account_opened_by_form()
                    if holder is not None:
                        return None, _log_in(request, holder)
                    raise ImmediateHttpResponse(_form_page(request, self)) from None
                if self.account_already_exists:
                    return super().try_save(request)
                # The address is free: two addresses made the same username; a new
                # attempt picks another one.
        raise RuntimeError("signup: no free username after several attempts")

    def _account_opened_by_form(self) -> Any:
        """The account the address names, when the form's password opens it; else None.

        Only when "already registered" is the form's one problem. allauth's
        authenticate() counts a wrong password against the address's failed-login
        limit, as the login page does, so this is no way around that limit.
        """
        if set(self._errors or {}) != {"email"} or not self.has_error("email", code="email_taken"):
            return None
        password = self.cleaned_data.get("password1")
        email = str(self.data.get("email", "")).strip().lower()
        request = allauth_context.request
        if not (password and email and request is not None):
            return None
        try:
            return get_adapter(request).authenticate(request, email=email, password=password)
        except forms.ValidationError:  # too many failed attempts for this address
            return None


def _log_in(request: HttpRequest, user: Any) -> HttpResponse:
    login = Login(user=user, email=user.email)  # allauth then honours ?next= as a login does
    return flows.login.perform_password_login(request, {"email": user.email}, login)


def _form_page(request: HttpRequest, form: SignupForm) -> HttpResponse:
    """allauth's own signup page showing the form's errors (allauth's AccountMiddleware
    answers an ImmediateHttpResponse raised inside its view with this response)."""
    view = allauth_views.SignupView()
    view.setup(request)
    return view.form_invalid(form)


# Concurrent signups of addresses with the same local part can pick the same generated
# username; each attempt sees the usernames the others committed.
_SAVE_ATTEMPTS = 3


class ResetPasswordKeyForm(allauth_forms.ResetPasswordKeyForm):
    """The new password from an emailed reset link (lifecycle.reset explains the wipe).

    Here rather than on allauth's `password_reset` signal, which is sent after the new
    password is saved: the wipe and the password must change in one transaction.
    """

    def save(self) -> None:
        account_password_reset(user=self.user, password=self.cleaned_data["password1"])
