
from django.http import HttpRequest
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin

from accounts.owner import guest_id_in_session
from accounts.preferences import preferred_language


def _saved_language(request: HttpRequest) -> str:
    user = request.user
    return preferred_language(
        user_id=user.pk if user.is_authenticated else None,
        guest_id=None if user.is_authenticated else guest_id_in_session(request),
    )


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
