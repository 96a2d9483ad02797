"""The memory JSON API the app uses: GET /api/memory/ and DELETE /api/memory/.

Personas:
- guest: a visitor with no account; reads and clears only their own guest memory.
- user: a signed-in account; reads and clears only their own memory. No plan check.
- other user: another account; never sees or loses anything through the user's requests.
"""

import pytest
from django.test import Client

from accounts.models import Guest
from accounts.owner import Owner
from memory.models import Memory
from tests.conftest import guest_start, make_user
from tests.db_faults import memory_row_locked, memory_unreadable

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

FACTS = ["Name is Mai Nguyen", "Has a daughter, Linh (7)", "<script>alert(1)</script>"]

CLEARED = {
    "en": ("Memory cleared", "Whizi no longer remembers anything about you."),
    "vi": ("Đã xóa bộ nhớ", "Whizi không còn ghi nhớ điều gì về bạn nữa."),
    "zh-hans": ("记忆已清除", "Whizi不再记得关于你的任何信息。"),
    "ja": ("メモリを消去しました", "Whiziはあなたについて何も記憶していません"),
    "ko": ("메모리가 지워졌습니다", "Whizi는 더 이상 당신에 대해 아무것도 기억하지 않습니다."),
    "ms": ("Memori dikosongkan", "Whizi tidak lagi mengingati apa-apa tentang anda."),
}


def signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def csrf_header(client: Client) -> dict[str, str]:
    """What the app does: read the csrftoken cookie an earlier answer set, send it back."""
    return {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}


def test_it_returns_the_facts_count_and_tokens(user):
    Memory.objects.create(user=user, lines=FACTS, tokens=27, version=3)
    response = signed_in(user).get("/api/memory/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert data["facts"] == FACTS
    assert data["count"] == 3
    assert data["tokens"] == 27
    assert data["title"] == "What Whizi remembers"
    assert data["labels"] == {
        "settings_row": "What Whizi knows about me", "close": "Close", "forget": "Forget everything",
    }


def test_nothing_stored_is_an_empty_list_not_an_error(user):
    data = signed_in(user).get("/api/memory/").json()
    assert (data["facts"], data["count"], data["tokens"]) == ([], 0, 0)


def test_a_guest_reads_and_clears_their_own_memory():
    client = Client(enforce_csrf_checks=True)
    assert client.get("/api/memory/").json()["facts"] == []
    guest = Guest.objects.get(pk=guest_start(client).guest_id)
    Memory.objects.create(guest=guest, lines=["Guest likes tea"], tokens=4, version=1)
    assert client.get("/api/memory/").json()["facts"] == ["Guest likes tea"]
    assert Client().get("/api/memory/").json()["facts"] == []  # another visitor
    response = client.delete("/api/memory/", **csrf_header(client))
    assert response.status_code == 200
    assert Memory.objects.get(guest=guest).lines == []


def test_another_users_facts_never_show(user):
    other = make_user("other")
    Memory.objects.create(user=other, lines=["Other person's fact"], tokens=4, version=1)
    assert signed_in(user).get("/api/memory/").json()["facts"] == []


def test_delete_clears_everything_and_says_so(user):
    Memory.objects.create(user=user, lines=FACTS, tokens=27, version=3)
    client = signed_in(user, enforce_csrf_checks=True)
    client.get("/api/memory/")
    response = client.delete("/api/memory/", **csrf_header(client))
    assert response.status_code == 200
    assert response.json() == {
        "title": "Memory cleared", "message": "Whizi no longer remembers anything about you.",
    }
    row = Memory.objects.get(user=user)
    assert (row.lines, row.tokens) == ([], 0)
    assert client.get("/api/memory/").json()["facts"] == []


def test_delete_clears_only_the_requesters_memory(user):
    other = make_user("other")
    Memory.objects.create(user=user, lines=FACTS, tokens=27, version=1)
    Memory.objects.create(user=other, lines=["Other person's fact"], tokens=4, version=1)
    client = signed_in(user)
    assert client.delete("/api/memory/").status_code == 200
    assert Memory.objects.get(user=other).lines == ["Other person's fact"]


def test_delete_without_the_csrf_token_is_refused_and_deletes_nothing(user):
    Memory.objects.create(user=user, lines=FACTS, tokens=27, version=1)
    client = signed_in(user, enforce_csrf_checks=True)
    client.get("/api/memory/")
    refused = client.delete("/api/memory/")
    assert refused.status_code == 403
    assert refused.json()["error"]["title"] == "Security check failed"  # JSON, like every refusal
    assert client.delete("/api/memory/", HTTP_X_CSRFTOKEN="not-the-token").status_code == 403
    assert Memory.objects.get(user=user).lines == FACTS


def test_reading_sets_the_csrf_cookie_the_app_needs_for_delete(user):
    response = signed_in(user, enforce_csrf_checks=True).get("/api/memory/")
    assert "csrftoken" in response.cookies


@pytest.mark.parametrize("language", list(CLEARED))
def test_delete_answers_in_the_request_language(user, language):
    Memory.objects.create(user=user, lines=FACTS, tokens=27, version=1)
    response = signed_in(user).delete("/api/memory/", HTTP_ACCEPT_LANGUAGE=language)
    title, message = CLEARED[language]
    assert response.json() == {"title": title, "message": message}
    assert response["Content-Language"] == language


def test_the_japanese_alert_title_differs_from_the_web_row(user):
    data = signed_in(user).get("/api/memory/", HTTP_ACCEPT_LANGUAGE="ja").json()
    assert data["title"] == "Whiziが記憶していること"
    assert data["labels"] == {
        "settings_row": "Whiziが私について知っていること", "close": "閉じる", "forget": "すべて忘れる",
    }


def test_other_methods_are_not_allowed(user):
    response = signed_in(user).post("/api/memory/")
    assert response.status_code == 405
    assert set(response["Allow"].split(", ")) == {"GET", "DELETE"}


# Failures: the store really fails (a lock held by another database session), and
# nothing is deleted.


@pytest.mark.django_db(transaction=True)
def test_a_failed_read_is_503_memory_unavailable(user):
    Memory.objects.create(user=user, lines=FACTS, tokens=27, version=1)
    client = signed_in(user)
    with memory_unreadable():
        response = client.get("/api/memory/")
        korean = client.get("/api/memory/", HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 503
    assert response.json() == {
        "error": {
            "title": "Memory unavailable",
            "message": "Memory is unavailable right now. Please try again later.",
        }
    }
    assert korean.json() == {
        "error": {
            "title": "메모리를 사용할 수 없음",
            "message": "메모리를 지금 사용할 수 없습니다. 나중에 다시 시도해 주세요.",
        }
    }
    assert Memory.objects.get(user=user).lines == FACTS


@pytest.mark.django_db(transaction=True)
def test_a_failed_clear_is_503_and_the_list_is_still_there(user):
    Memory.objects.create(user=user, lines=FACTS, tokens=27, version=1)
    client = signed_in(user)
    with memory_row_locked(Owner(user_id=user.pk)):
        response = client.delete("/api/memory/")
        vietnamese = client.delete("/api/memory/", HTTP_ACCEPT_LANGUAGE="vi")
    assert response.status_code == 503
    assert response.json() == {
        "error": {
            "title": "Memory could not be cleared",
            "message": "Couldn't clear memory. Please try again.",
        }
    }
    assert vietnamese.json()["error"] == {
        "title": "Không thể xóa bộ nhớ", "message": "Không thể xóa bộ nhớ. Vui lòng thử lại.",
    }
    assert Memory.objects.get(user=user).lines == FACTS
    assert client.get("/api/memory/").json()["facts"] == FACTS
    # Clearing again works once the store is back.
    assert client.delete("/api/memory/").status_code == 200
    assert Memory.objects.get(user=user).lines == []


@pytest.mark.django_db
def test_memory_api_answers_429_past_the_owner_limit(client, settings, private_redis):
    settings.WHIZI_RATE_LIMITS_ENABLED = True
    settings.REDIS_CACHE_URL = private_redis.url
    settings.WHIZI_RATE_LIMITS = {**settings.WHIZI_RATE_LIMITS, "memory_read": (2, 100)}
    codes = [client.get("/api/memory/").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    assert client.get("/api/memory/").json()["error"]["title"] == "Too many requests"


@pytest.mark.django_db
def test_clearing_memory_still_works_when_the_rate_limiter_is_down(settings, private_redis):
    # Clearing fails open: Redis being down must never keep a person's facts stored.
    settings.WHIZI_RATE_LIMITS_ENABLED = True
    settings.REDIS_CACHE_URL = private_redis.url
    private_redis.stop()
    client = Client()
    client.get("/api/memory/")
    response = client.delete("/api/memory/", HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert response.status_code == 200
    assert response.json()["title"] == "Memory cleared"
