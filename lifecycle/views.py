from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods, require_POST

from accounts.owner import owner_for_write, owner_seen
from accounts.preferences import preference_read, preference_save, preferred_chat_model
from lifecycle.cleanup import guest_delete
from lifecycle.forms import PreferencesForm
from lifecycle.guest_offer import OfferAnswer, guest_offer_add, guest_offer_forget, guest_offered
from memory.services import MemoryUnavailable, memory_block_context, memory_read_failed_text


@never_cache
@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """Settings → Preferences, with the memory block last (?memory=open expands it)."""
    if request.method == "POST":
        form = PreferencesForm(request.POST)
        if form.is_valid():
            language = form.cleaned_data["language"]
            preference_save(owner=owner_for_write(request), language=language,
                            chat_model=form.cleaned_data["chat_model"])
            # The new language applies from the next request; say "saved" in it already.
            with translation.override(language or translation.get_language_from_request(request)):
                messages.success(request, gettext("Preferences saved."))
            return redirect("lifecycle:settings")
        status = 400
    else:
        owner = owner_seen(request)
        form = PreferencesForm(initial={"language": preference_read(owner=owner).language,
                                        "chat_model": preferred_chat_model(owner=owner)})
        status = 200
    context = {
        "form": form,
        **memory_block_context(owner=owner_seen(request), expanded=request.GET.get("memory") == "open"),
    }
    return render(request, "settings/page.html", context, status=status)


def _back(request: HttpRequest) -> HttpResponse:
    """Back to the page the offer was answered on (the chat page or settings)."""
    url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        url = "/"
    return redirect(url)


@never_cache
@require_POST
def guest_offer_add_form(request: HttpRequest) -> HttpResponse:
    """"Add": the offered guest's data moves into the account, as at sign-up. An offer
    already answered (another tab, a second click) has gone, and nothing happens."""
    guest_id = guest_offered(request)
    if guest_id is None:
        return _back(request)
    try:
        answer = guest_offer_add(guest_id=guest_id, user_id=request.user.pk,
                                 digest=request.POST.get("offer", ""))
    except MemoryUnavailable:
        messages.error(request, memory_read_failed_text())
        return _back(request)
    if answer is OfferAnswer.CHANGED:
        # Shown again as it is now: nothing is added that the person has not seen.
        messages.warning(request, gettext(
            "What this browser holds changed since it was shown. Check it again, then choose."))
        return _back(request)
    guest_offer_forget(request)
    if answer is OfferAnswer.ADDED:
        messages.success(request, gettext("Added to your account."))
    return _back(request)


@never_cache
@require_POST
def guest_offer_discard_form(request: HttpRequest) -> HttpResponse:
    """"Discard": the offered guest is deleted with everything it owns; the account is
    untouched."""
    guest_id = guest_offered(request)
    if guest_id is None:
        return _back(request)
    deleted = guest_delete(guest_id=guest_id)
    guest_offer_forget(request)
    if deleted is not None:
        messages.success(request, gettext("Discarded. Nothing was added to your account."))
    return _back(request)
