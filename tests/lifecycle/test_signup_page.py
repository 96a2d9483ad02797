"""The sign-up page in every language: a refused password is told in the visitor's
language, its rules show once (as help, or as the error), and after signing up one line
says what came from this browser into the account.

Personas: a visitor signing up; a guest with chats and facts signing up.
"""

import re

import pytest
from django.test import Client

from chat.models import Conversation, Message
from memory.models import Memory
from tests.conftest import guest_start

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

SHORT = {
    "vi": "Mật khẩu này quá ngắn. Mật khẩu phải có ít nhất 8 ký tự.",
    "zh-hans": "这个密码太短。密码至少需要包含 8 个字符。",
    "ja": "このパスワードは短すぎます。最低 8 文字以上必要です。",
    "ko": "이 비밀번호는 너무 짧습니다. 최소 8자 이상이어야 합니다.",
    "ms": "Kata laluan ini terlalu pendek. Ia mesti mengandungi sekurang-kurangnya 8 aksara.",
}


def _signup(client: Client, password: str, language: str = "en"):
    return client.post("/accounts/signup/", {"email": "mai@example.com", "password1": password,
                                             "password2": password}, HTTP_ACCEPT_LANGUAGE=language)


@pytest.mark.parametrize("language", SHORT)
def test_a_short_password_is_refused_in_the_visitors_language(client, language):
    page = _signup(client, "Zq7!", language).content.decode()

    assert SHORT[language] in page
    assert "This password is too short" not in page


def test_the_password_rules_show_once(client):
    first = client.get("/accounts/signup/").content.decode()
    refused = _signup(client, "Zq7!").content.decode()

    assert first.count("Your password must contain at least 8 characters.") == 1  # as help
    assert refused.count("at least 8 characters") == 1  # as the error only
    assert 'id="id_password1_helptext"' not in refused


def _flash(page: str) -> list[str]:
    return re.findall(r"<li>(.*?)</li>", "".join(re.findall(r'<div class="flash".*?</div>', page, re.S)))


def test_after_signing_up_one_line_says_what_came_from_this_browser(client):
    client.get("/")
    owner = guest_start(client)
    for title in ("Trip", "Soup"):
        chat = Conversation.objects.create(**owner.lookup, model="whizi/offline", title=title)
        Message.objects.create(conversation=chat, role="user", content=title)
    Memory.objects.create(**owner.lookup, lines=["Name is Mai", "Lives in Hue", "Likes pho", "Has a cat"],
                          tokens=16, version=1)

    page = client.post("/accounts/signup/", {"email": "mai@example.com", "password1": "a-long-pass-phrase",
                                             "password2": "a-long-pass-phrase"}, follow=True).content.decode()

    assert _flash(page) == ["2 chats and 4 facts from this browser are now in your account."]
    assert "data-flash-close" in page  # dismissable


def test_one_chat_and_no_facts_is_said_in_the_singular_and_in_the_visitors_language(client):
    client.get("/")
    owner = guest_start(client)
    chat = Conversation.objects.create(**owner.lookup, model="whizi/offline", title="Trip")
    Message.objects.create(conversation=chat, role="user", content="Trip")

    page = client.post("/accounts/signup/", {"email": "mai@example.com", "password1": "a-long-pass-phrase",
                                             "password2": "a-long-pass-phrase"}, follow=True,
                       HTTP_ACCEPT_LANGUAGE="vi").content.decode()

    assert _flash(page) == ["1 cuộc trò chuyện từ trình duyệt này giờ đã ở trong tài khoản của bạn."]


def test_a_visitor_with_nothing_to_bring_gets_allauths_notices(client):
    page = client.post("/accounts/signup/", {"email": "mai@example.com", "password1": "a-long-pass-phrase",
                                             "password2": "a-long-pass-phrase"}, follow=True).content.decode()

    assert "Logged in as mai@example.com." in _flash(page)
