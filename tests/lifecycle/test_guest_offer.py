"""The question a login's guest offer asks, counted in each of the six languages: both
kinds when there are facts and chats, the one kind there is otherwise, and projects when
they are all there is (docs/STRINGS.md, "Guest data at login")."""
# ruff: noqa: E501

import uuid
from datetime import UTC, datetime

import pytest
from django.utils import translation

from lifecycle.guest_offer import GuestOffer

QUESTIONS = {
    "en": ("Add this browser's 3 facts and 2 chats to your account?",
           "Add this browser's 1 fact to your account?", "Add this browser's 1 chat to your account?",
           "Add this browser's 2 projects to your account?"),
    "vi": ("Thêm 3 sự kiện và 2 cuộc trò chuyện từ trình duyệt này vào tài khoản của bạn?",
           "Thêm 1 sự kiện từ trình duyệt này vào tài khoản của bạn?",
           "Thêm 1 cuộc trò chuyện từ trình duyệt này vào tài khoản của bạn?",
           "Thêm 2 dự án từ trình duyệt này vào tài khoản của bạn?"),
    "zh-hans": ("要将此浏览器中的3 条事实和2 个聊天添加到你的账户吗？", "要将此浏览器中的1 条事实添加到你的账户吗？",
                "要将此浏览器中的1 个聊天添加到你的账户吗？", "要将此浏览器中的2 个项目添加到你的账户吗？"),
    "ja": ("このブラウザの3 件の事実と2 件のチャットをアカウントに追加しますか？", "このブラウザの1 件の事実をアカウントに追加しますか？",
           "このブラウザの1 件のチャットをアカウントに追加しますか？", "このブラウザの2 件のプロジェクトをアカウントに追加しますか？"),
    "ko": ("이 브라우저의 사실 3개와 채팅 2개를 계정에 추가할까요?", "이 브라우저의 사실 1개를 계정에 추가할까요?",
           "이 브라우저의 채팅 1개를 계정에 추가할까요?", "이 브라우저의 프로젝트 2개를 계정에 추가할까요?"),
    "ms": ("Tambah 3 fakta dan 2 sembang daripada pelayar ini ke akaun anda?",
           "Tambah 1 fakta daripada pelayar ini ke akaun anda?", "Tambah 1 sembang daripada pelayar ini ke akaun anda?",
           "Tambah 2 projek daripada pelayar ini ke akaun anda?"),
}


def _offer(*, facts: int = 0, chats: int = 0, voice: int = 0, projects: int = 0) -> GuestOffer:
    return GuestOffer(guest_id=uuid.uuid4(), facts=tuple(f"Fact {i}" for i in range(facts)),
                      chat_titles=tuple(f"Chat {i}" for i in range(chats)),
                      voice_chats=tuple(datetime(2026, 1, 1, tzinfo=UTC) for _ in range(voice)),
                      projects=tuple(f"Project {i}" for i in range(projects)), digest="x")


@pytest.mark.parametrize("language", QUESTIONS)
def test_the_question_counts_what_the_browser_holds(language):
    offers = (_offer(facts=3, chats=1, voice=1, projects=1), _offer(facts=1), _offer(voice=1),
              _offer(projects=2))
    with translation.override(language):
        assert tuple(offer.question for offer in offers) == QUESTIONS[language]


def test_an_offer_with_no_fact_chat_or_project_is_empty():
    assert _offer().is_empty
    assert not _offer(projects=1).is_empty and not _offer(voice=1).is_empty
