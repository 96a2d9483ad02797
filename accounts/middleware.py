
from django.http import HttpRequest
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin

from accounts.owner import guest_saved_language
from accounts.preferences import language_known, preferred_language


def _saved_language(request: HttpRequest) -> str:
    user = request.user
    if user.is_authenticated:
        return preferred_language(user_id=user.pk, guest_id=None)
    # A guest's language is read with the note of its visit, which its views need anyway.
    return language_known(guest_saved_language(request))


def _use(request: HttpRequest, language: str) -> None:
    if language:
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()


class PreferenceLanguageMiddleware(MiddlewareMixin):
    """Answer in the language saved in Preferences; without one, LocaleMiddleware's choice
    (Accept-Language) stands.

    Runs after AuthenticationMiddleware (it needs request.user) and after LocaleMiddleware,
    whose response step then reports the language actually used in Content-Language, in
    the same thread step as they do (whizi.middleware.ThreadStepMiddleware). It never
    creates a guest: a visitor without one has no saved language.
    """

    def process_request(self, request: HttpRequest) -> None:
        _use(request, _saved_language(request))
