from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from accounts.owner import owner_for_request
from accounts.preferences import chat_models, preference_read, preference_save
from lifecycle.forms import PreferencesForm
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
