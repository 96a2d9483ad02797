from typing import Any

from allauth.account import views as allauth_views
from allauth.account.adapter import get_adapter
from allauth.account.internal import flows
from allauth.account.models import Login
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from accounts.owner import owner_for_request
from accounts.preferences import chat_models, preference_read, preference_save
from lifecycle.forms import EmailTaken, PreferencesForm, SignupForm
from memory.views import memory_block_context


@never_cache
@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """Settings → Preferences, with the memory block last (?memory=open expands it)."""
    owner = owner_for_request(request)
    if request.method == "POST":
        form = PreferencesForm(request.POST)
        if form.is_valid():
            language = form.cleaned_data["language"]
            preference_save(owner=owner, language=language, chat_model=form.cleaned_data["chat_model"])
            # The new language applies from the next request; say "saved" in it already.
            with translation.override(language or translation.get_language_from_request(request)):
                messages.success(request, gettext("Preferences saved."))
            return redirect("lifecycle:settings")
        status = 400
    else:
        saved = preference_read(owner=owner)
        form = PreferencesForm(
            initial={"language": saved.language, "chat_model": saved.chat_model or chat_models()[0]}
        )
        status = 200
    context = {
        "form": form,
        **memory_block_context(owner=owner, expanded=request.GET.get("memory") == "open"),
    }
    return render(request, "settings/page.html", context, status=status)


class SignupView(allauth_views.SignupView):
    """allauth's signup page; a signup that lost its address to another at the same
    moment, or a form sent twice, gets an answer instead of a server error."""

    def form_valid(self, form: SignupForm) -> HttpResponse:
        try:
            return super().form_valid(form)
        except EmailTaken:
            return self.form_invalid(form)  # the form carries allauth's "already registered"

    def form_invalid(self, form: SignupForm) -> HttpResponse:
        holder = _account_opened_by_form(self.request, form)
        if holder is not None:
            # The same person sent the form twice (a double click, a retry): the first
            # created the account, and this password opens it, so this is a login.
            login = Login(user=holder, email=form.cleaned_data.get("email") or holder.email,
                          redirect_url=self.get_success_url())
            return flows.login.perform_password_login(self.request, {"email": holder.email}, login)
        return super().form_invalid(form)


def _account_opened_by_form(request: HttpRequest, form: SignupForm) -> Any:
    """The account the form's address names, when its password opens it; else None.

    Only when the address is the form's one problem. allauth's authenticate() counts a
    wrong password against the address's failed-login limit, as the login page does, so
    the signup page is no way around that limit.
    """
    if set(form.errors) != {"email"} or not form.has_error("email", code="email_taken"):
        return None
    password = form.cleaned_data.get("password1")
    email = str(form.data.get("email", "")).strip().lower()
    if not (password and email):
        return None
    try:
        return get_adapter(request).authenticate(request, email=email, password=password)
    except ValidationError:  # too many failed attempts for this address
        return None


signup = SignupView.as_view()
