"""Admin for support staff: memory rows and the pass log are read-only, searchable by
the account's email; clearing an owner's memory is an action recorded in the admin log.

Personas:
- support staff: in the "Support" group (accounts migration 0003); may view memory
  rows, the pass log, guests and users, and may clear an owner's memory; may never
  add, change or delete a row, so fact text is never edited by hand.
- staff without a group: may open the admin, sees no memory at all.
- superuser: may clear too, and cannot edit fact text either (nobody can).
"""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.test import Client

from accounts.models import Guest
from memory.models import Memory, MemoryPass
from memory.tokens import count_list_tokens

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

CHANGELIST = "/admin/memory/memory/"
PASSES = "/admin/memory/memorypass/"


def _staff(email: str, *, group: str | None = None, superuser: bool = False) -> Client:
    User = get_user_model()
    maker = User.objects.create_superuser if superuser else User.objects.create_user
    user = maker(email.split("@")[0], email, "a-long-pass-phrase", is_staff=True)
    if group:
        user.groups.add(Group.objects.get(name=group))
    browser = Client()
    browser.force_login(user)
    return browser


@pytest.fixture
def support() -> Client:
    return _staff("support@whizi.example", group="Support")


@pytest.fixture
def mai_memory() -> Memory:
    user = get_user_model().objects.create_user("mai", "mai@example.com", "a-long-pass-phrase")
    lines = ["Name is Mai", "Has a cat called <b>Miso</b>"]
    memory = Memory.objects.create(user=user, lines=lines, tokens=count_list_tokens(lines), version=2)
    MemoryPass.objects.create(user=user, trigger="cadence", status="done", outcome="updated")
    MemoryPass.objects.create(user=user, trigger="request", status="queued")
    return memory


@pytest.fixture
def bo_memory() -> Memory:
    user = get_user_model().objects.create_user("bo", "bo@example.com", "a-long-pass-phrase")
    MemoryPass.objects.create(user=user, trigger="voice", status="done", outcome="unchanged")
    return Memory.objects.create(user=user, lines=["Bo's fact"], tokens=4)


def test_support_finds_memory_by_email_with_its_count_and_tokens(support, mai_memory, bo_memory):
    page = support.get(CHANGELIST, {"q": "mai@example"})

    assert page.status_code == 200
    rows = list(page.context["cl"].result_list)
    assert rows == [mai_memory]
    html = page.content.decode()
    assert "mai@example.com (account" in html
    assert '<td class="field-fact_count">2</td>' in html
    assert f'<td class="field-tokens">{mai_memory.tokens}</td>' in html
    assert "bo@example.com" not in html


def test_a_search_by_guest_id_finds_the_guests_memory(support):
    guest = Guest.objects.create()
    Memory.objects.create(guest=guest, lines=["Guest fact"], tokens=3)

    assert len(support.get(CHANGELIST, {"q": str(guest.pk)}).context["cl"].result_list) == 1
    assert support.get(CHANGELIST, {"q": "not-a-guest-id"}).status_code == 200


def test_support_sees_the_facts_escaped_and_read_only(support, mai_memory):
    page = support.get(f"{CHANGELIST}{mai_memory.pk}/change/")

    assert page.status_code == 200
    html = page.content.decode()
    assert "<li>Has a cat called &lt;b&gt;Miso&lt;/b&gt;</li>" in html
    assert 'name="lines"' not in html  # no field to edit
    assert "2 passes" in html


def test_support_cannot_change_add_or_delete_memory(support, mai_memory):
    change = support.post(f"{CHANGELIST}{mai_memory.pk}/change/", {"lines": '["Planted fact"]'})
    add = support.post(f"{CHANGELIST}add/", {"user": mai_memory.user_id, "lines": '["x"]'})
    delete = support.post(f"{CHANGELIST}{mai_memory.pk}/delete/", {"post": "yes"})

    assert (change.status_code, add.status_code, delete.status_code) == (403, 403, 403)
    mai_memory.refresh_from_db()
    assert mai_memory.lines == ["Name is Mai", "Has a cat called <b>Miso</b>"]


def test_support_cannot_change_a_pass_record(support, mai_memory):
    memory_pass = MemoryPass.objects.filter(user_id=mai_memory.user_id).first()
    response = support.post(f"{PASSES}{memory_pass.pk}/change/", {"outcome": "failed"})
    assert response.status_code == 403


def test_not_even_a_superuser_can_edit_fact_text(mai_memory):
    admin = _staff("root@whizi.example", superuser=True)
    response = admin.post(f"{CHANGELIST}{mai_memory.pk}/change/", {"lines": '["Planted fact"]'})
    assert response.status_code == 403
    mai_memory.refresh_from_db()
    assert mai_memory.lines[0] == "Name is Mai"


def test_staff_outside_the_support_group_sees_no_memory(mai_memory):
    outsider = _staff("intern@whizi.example")
    assert outsider.get(CHANGELIST).status_code == 403
    assert outsider.get(PASSES).status_code == 403


def test_the_pass_log_is_shown_per_owner(support, mai_memory, bo_memory):
    page = support.get(PASSES, {"user__id__exact": mai_memory.user_id})

    assert page.status_code == 200
    passes = list(page.context["cl"].result_list)
    assert {p.user_id for p in passes} == {mai_memory.user_id}
    assert len(passes) == 2
    assert len(support.get(PASSES, {"q": "bo@example.com"}).context["cl"].result_list) == 1


def test_clearing_asks_first_then_clears_and_is_recorded_in_the_admin_log(support, mai_memory, bo_memory):
    selection = {"action": "clear_memory", "_selected_action": [mai_memory.pk]}

    confirm = support.post(CHANGELIST, selection)
    assert confirm.status_code == 200
    assert "Clear Whizi&#x27;s memory?" in confirm.content.decode()
    mai_memory.refresh_from_db()
    assert mai_memory.lines != []

    done = support.post(CHANGELIST, {**selection, "confirmed": "yes"})

    assert done.status_code == 302
    mai_memory.refresh_from_db()
    assert (mai_memory.lines, mai_memory.tokens, mai_memory.epoch) == ([], 0, 1)
    assert mai_memory.cleared_at is not None
    assert Memory.objects.get(pk=bo_memory.pk).lines == ["Bo's fact"]
    entry = LogEntry.objects.get()
    assert entry.action_flag == CHANGE
    assert entry.user.email == "support@whizi.example"
    assert entry.object_id == str(mai_memory.pk)
    assert entry.change_message == "Cleared memory (2 facts)."
    assert "Miso" not in entry.change_message + entry.object_repr


def test_the_clear_action_is_not_offered_without_the_clear_permission(mai_memory):
    viewer = get_user_model().objects.create_user("v", "v@whizi.example", "pw-123456-abc", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_memory"))
    browser = Client()
    browser.force_login(viewer)

    page = browser.get(CHANGELIST)
    assert page.status_code == 200
    assert "clear_memory" not in page.content.decode()
    browser.post(
        CHANGELIST, {"action": "clear_memory", "_selected_action": [mai_memory.pk], "confirmed": "yes"}
    )
    mai_memory.refresh_from_db()
    assert mai_memory.lines != []


def test_the_support_group_is_view_only_apart_from_clearing():
    codenames = set(Group.objects.get(name="Support").permissions.values_list("codename", flat=True))
    assert "clear_memory" in codenames
    assert all(code.startswith("view_") for code in codenames - {"clear_memory"})
    assert {"view_memory", "view_memorypass"} <= codenames
