
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts.owner import guest_id_in_session
from accounts.preferences import preferred_language
from whizi.db import db_step
from whizi.middleware import SyncAndAsyncMiddleware


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


class PreferenceLanguageMiddleware(SyncAndAsyncMiddleware):
    """Answer in the language saved in Preferences; without one, LocaleMiddleware's choice
    (Accept-Language) stands.

    Sits after AuthenticationMiddleware (it needs request.user) and after LocaleMiddleware,
    whose response step then reports the language actually used in Content-Language.
    It never creates a guest: a visitor without one has no saved language. Sync and async:
    an async view (chat, voice) keeps no thread or connection while it awaits.
    """

    def __call__(self, request: HttpRequest):
        if self.async_mode:
            return self.__acall__(request)
        _use(request, _saved_language(request))
        return self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        _use(request, await db_step(_saved_language, request))
        return await self.get_response(request)
