"""Settings → Preferences: the interface language and the default chat model of an owner.

One Preference row per account, or per guest until they sign up. A blank language
means "follow the browser" (Accept-Language); a blank chat model means the first
configured one. A saved value that is no longer configured (a language or model
removed from settings) reads as blank rather than failing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from accounts.locks import owner_hold
from accounts.models import Preference
from accounts.owner import Owner


class InvalidPreference(ValueError):
    """A language or chat model that is not configured; nothing was saved."""


@dataclass(frozen=True)
class Preferences:
    language: str  # a code from settings.LANGUAGES, or "" to follow the browser
    chat_model: str  # one of settings.WHIZI_CHAT_MODELS, or "" for the first one


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def chat_models() -> list[str]:
    return list(settings.WHIZI_CHAT_MODELS)


def _known(*, language: str, chat_model: str) -> Preferences:
    return Preferences(
        language=language if language in language_codes() else "",
        chat_model=chat_model if chat_model in chat_models() else "",
    )


def preference_read(*, owner: Owner | None) -> Preferences:
    """The owner's saved preferences (blank when nothing is saved, or there is no owner yet)."""
    row = None
    if owner is not None:
        row = Preference.objects.filter(**owner.lookup).values_list("language", "chat_model").first()
    if row is None:
        return Preferences(language="", chat_model="")
    return _known(language=row[0], chat_model=row[1])


def preference_save(*, owner: Owner, language: str, chat_model: str) -> Preferences:
    """Save both preferences at once. Raises InvalidPreference for an unknown value."""
    if language and language not in language_codes():
        raise InvalidPreference(f"unknown language {language!r}")
    if chat_model and chat_model not in chat_models():
        raise InvalidPreference(f"unknown chat model {chat_model!r}")
    with transaction.atomic():
        owner_hold(owner=owner)  # an owner deleted meanwhile is a 404 (accounts.locks)
        Preference.objects.update_or_create(
            **owner.lookup, defaults={"language": language, "chat_model": chat_model}
        )
    return Preferences(language=language, chat_model=chat_model)


def preferred_language(*, user_id: int | None, guest_id: uuid.UUID | None) -> str:
    """The saved language of a user or an existing guest, or "" to follow the browser.

    Takes ids rather than an Owner so the language middleware can ask without creating
    a guest identity for a visitor who has none yet.
    """
    if user_id is not None:
        lookup: dict[str, object] = {"user_id": user_id}
    elif guest_id is not None:
        lookup = {"guest_id": guest_id}
    else:
        return ""
    return language_known(Preference.objects.filter(**lookup).values_list("language", flat=True).first())


def language_known(language: str | None) -> str:
    """A saved language as it is used: "" (follow the browser) when it is no longer configured."""
    return language if language in language_codes() else ""


def preferred_chat_model(*, owner: Owner | None) -> str:
    """The one rule for the default chat model: the owner's saved one, else the first
    configured (a new conversation's model when the request names none, and the settings
    form's initial choice)."""
    return preference_read(owner=owner).chat_model or chat_models()[0]
