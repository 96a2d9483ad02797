"""Settings → Preferences: the interface language and the default chat model.

Personas:
- guest: a visitor with no account; their preferences are kept for their guest identity.
- user: a signed-in account; their preferences follow them to every device.
- other user / other guest: never affected by someone else's choice.
"""

import pytest
from django.test import Client

from accounts.models import Guest, Preference
from accounts.owner import Owner
from accounts.preferences import (
    InvalidPreference,
    Preferences,
    preference_read,
    preference_save,
    preferred_chat_model,
)
from tests.conftest import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

MODELS = ["whizi/offline", "openai/gpt-4o-mini", "anthropic/claude-3-5-haiku"]


@pytest.fixture(autouse=True)
def chat_models(settings):
    settings.WHIZI_CHAT_MODELS = MODELS


def test_the_page_offers_every_language_the_browser_and_every_chat_model(user_client):
    body = user_client.get("/settings/").content.decode()
    assert '<option value="" selected>Follow the browser</option>' in body
    for code, name in [("en", "English"), ("vi", "Tiếng Việt"), ("zh-hans", "简体中文"),
                       ("ja", "日本語"), ("ko", "한국어"), ("ms", "Bahasa Melayu")]:
        assert f'<option value="{code}">{name}</option>' in body
    # With nothing saved, the first configured model is the one in use; each is shown by
    # its display name (the part after the provider, unless the models file names it).
    assert '<option value="whizi/offline" selected>Whizi offline</option>' in body
    for model in MODELS[1:]:
        assert f'<option value="{model}">{model.rsplit("/", 1)[-1]}</option>' in body


def test_a_user_saves_preferences_for_their_account(user_client, user):
    response = user_client.post("/settings/", {"language": "ko", "chat_model": MODELS[1]})
    assert response.status_code == 302
    assert response["Location"] == "/settings/"
    assert preference_read(owner=Owner(user_id=user.pk)) == Preferences(language="ko", chat_model=MODELS[1])
    body = user_client.get("/settings/").content.decode()
    assert '<option value="ko" selected>' in body
    assert f'<option value="{MODELS[1]}" selected>' in body


def test_the_saved_language_wins_over_the_browser_on_every_device(user_client, user):
    user_client.post("/settings/", {"language": "ja", "chat_model": MODELS[0]})
    other_device = Client(HTTP_ACCEPT_LANGUAGE="en")
    other_device.force_login(user)
    response = other_device.get("/settings/")
    body = response.content.decode()
    assert '<html lang="ja">' in body
    assert "環境設定" in body and "メモリ" in body
    assert response["Content-Language"] == "ja"
    # The JSON API follows it too.
    api = other_device.delete("/api/memory/")
    assert api.json()["title"] == "メモリを消去しました"


def test_following_the_browser_leaves_the_choice_to_accept_language(user_client, user):
    user_client.post("/settings/", {"language": "vi", "chat_model": MODELS[0]})
    user_client.post("/settings/", {"language": "", "chat_model": MODELS[0]})
    assert Preference.objects.get(user=user).language == ""
    body = user_client.get("/settings/", HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert '<html lang="zh-hans">' in body
    assert "偏好设置" in body


def test_saving_confirms_in_the_newly_chosen_language(user_client):
    response = user_client.post("/settings/", {"language": "ms", "chat_model": MODELS[0]}, follow=True)
    assert "Keutamaan disimpan." in response.content.decode()


def test_a_guest_saves_preferences_for_their_guest_identity(client):
    client.get("/settings/")
    client.post("/settings/", {"language": "vi", "chat_model": MODELS[2]})  # the save makes the guest
    guest = Guest.objects.get()
    assert preference_read(owner=Owner(guest_id=guest.pk)) == Preferences(language="vi", chat_model=MODELS[2])
    assert '<html lang="vi">' in client.get("/settings/").content.decode()
    other_guest = Client()
    assert '<html lang="en">' in other_guest.get("/settings/").content.decode()
    assert Preference.objects.count() == 1


def test_an_unknown_language_or_model_is_refused_and_nothing_changes(user_client, user):
    user_client.post("/settings/", {"language": "ja", "chat_model": MODELS[1]})
    for bad in ({"language": "xx", "chat_model": MODELS[2]}, {"language": "en", "chat_model": "evil/model"}):
        response = user_client.post("/settings/", bad)
        assert response.status_code == 400
        body = response.content.decode()
        assert 'role="alert"' in body
        # The form keeps the user's valid choice next to the error.
        assert f'<option value="{MODELS[2]}" selected>' in body or '<option value="en" selected>' in body
        saved = preference_read(owner=Owner(user_id=user.pk))
        assert saved == Preferences(language="ja", chat_model=MODELS[1])


def test_the_service_refuses_unknown_values(user):
    owner = Owner(user_id=user.pk)
    with pytest.raises(InvalidPreference):
        preference_save(owner=owner, language="klingon", chat_model="")
    with pytest.raises(InvalidPreference):
        preference_save(owner=owner, language="", chat_model="nope/model")
    assert not Preference.objects.exists()


def test_a_value_no_longer_configured_reads_as_the_default(user, settings):
    owner = Owner(user_id=user.pk)
    preference_save(owner=owner, language="ms", chat_model=MODELS[2])
    settings.WHIZI_CHAT_MODELS = MODELS[:2]
    settings.LANGUAGES = [("en", "English")]
    assert preference_read(owner=owner) == Preferences(language="", chat_model="")
    assert preferred_chat_model(owner=owner) == MODELS[0]


def test_the_preferred_chat_model_is_the_saved_one_else_the_first(user):
    owner = Owner(user_id=user.pk)
    assert preferred_chat_model(owner=owner) == MODELS[0]
    preference_save(owner=owner, language="", chat_model=MODELS[2])
    assert preferred_chat_model(owner=owner) == MODELS[2]


def test_one_users_choice_never_changes_another_users_language(user_client):
    other = make_user("other")
    user_client.post("/settings/", {"language": "ja", "chat_model": MODELS[0]})
    other_client = Client()
    other_client.force_login(other)
    assert '<html lang="en">' in other_client.get("/settings/").content.decode()


def test_a_visitor_who_never_used_whizi_gets_no_guest_from_the_language_check(client):
    client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="ja")
    assert not Guest.objects.exists()
