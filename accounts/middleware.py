from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts.owner import guest_id_in_session
from accounts.preferences import preferred_language


class PreferenceLanguageMiddleware:
    """Answer in the language saved in Preferences; without one, LocaleMiddleware's choice
    (Accept-Language) stands.

    Sits after AuthenticationMiddleware (it needs request.user) and after LocaleMiddleware,
    whose response step then reports the language actually used in Content-Language.
    It never creates a guest: a visitor without one has no saved language.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        language = preferred_language(
            user_id=user.pk if user.is_authenticated else None,
            guest_id=None if user.is_authenticated else guest_id_in_session(request),
        )
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)
