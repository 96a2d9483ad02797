from allauth.account import forms as allauth_forms
from django import forms
from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.preferences import chat_models
from whizi.llm import model_display_name


class PreferencesForm(forms.Form):
    language = forms.ChoiceField(label=_("Language"), required=False)
    chat_model = forms.ChoiceField(label=_("Default chat model"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Languages are named in their own language, so anyone can find theirs.
        self.fields["language"].choices = [("", _("Follow the browser")), *settings.LANGUAGES]
        self.fields["chat_model"].choices = [(model, model_display_name(model)) for model in chat_models()]


class EmailTaken(Exception):
    """The signup lost its address to an account created at the same moment."""


class SignupForm(allauth_forms.SignupForm):
    """allauth's signup, safe when two signups race for one address.

    The database holds one account per address, whatever its case
    (accounts/migrations/0005). allauth checks the address before it saves, so two
    signups at the same moment both pass that check; the one whose insert loses gets
    allauth's own "already registered" answer instead of a server error.
    """

    def try_save(self, request: HttpRequest):
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
                    raise EmailTaken from None
                if self.account_already_exists:
                    return super().try_save(request)
                # The address is free: two addresses made the same username; a new
                # attempt picks another one.
        raise RuntimeError("signup: no free username after several attempts")


# Concurrent signups of addresses with the same local part can pick the same generated
# username; each attempt sees the usernames the others committed.
_SAVE_ATTEMPTS = 3

