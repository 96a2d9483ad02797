"""`export_account` writes one JSON document with everything the account owns,
memory under `memory`, and streams it rather than loading the account at once."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Preference
from accounts.owner import Owner
from chat.models import Conversation, Message
from lifecycle.export import account_export
from tests.lifecycle.helpers import give_history, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def account():
    user = make_user("mai@example.com")
    owner = Owner(user_id=user.pk)
    history = give_history(owner, facts=["Tên tôi là Nguyễn Thị Mai", "Has a cat called Miso"])
    Preference.objects.create(user=user, language="vi", chat_model="whizi/offline")
    return user, history


def _export(*args: str) -> tuple[dict, str]:
    out, err = StringIO(), StringIO()
    call_command("export_account", *args, stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


def test_the_export_holds_the_account_and_everything_it_owns(account):
    user, history = account
    other = make_user("bo@example.com")
    give_history(Owner(user_id=other.pk), facts=["Bo's fact"])

    document, summary = _export("mai@example.com")

    assert document["account"]["id"] == user.pk
    assert document["account"]["email"] == "mai@example.com"
    assert document["memory"] == ["Tên tôi là Nguyễn Thị Mai", "Has a cat called Miso"]
    assert document["memory_meta"]["count"] == 2
    assert document["memory_meta"]["tokens"] > 0
    assert document["preferences"]["language"] == "vi"
    assert [p["name"] for p in document["projects"]] == ["Thesis"]
    [conversation] = document["conversations"]
    assert conversation["id"] == history.conversation.pk
    assert conversation["project_id"] == history.project.pk
    assert [(m["role"], m["content"]) for m in conversation["messages"]] == [
        ("user", "My name is Mai; I have a cat called Miso."), ("assistant", "Hi Mai!"),
    ]
    [session] = document["voice_sessions"]
    assert [t["text"] for t in session["turns"]] == ["I live in Hanoi."]
    assert [p["trigger"] for p in document["memory_passes"]] == ["request"]
    # What each reply and each pass cost is the account's too; a pass's changes are counts.
    assert {"cost", "input_tokens", "output_tokens"} <= set(conversation["messages"][1])
    assert {"changes", "cost"} <= set(document["memory_passes"][0])
    assert "Bo's fact" not in json.dumps(document)
    assert "2 facts" in summary and "2 messages" in summary


def test_the_account_can_be_named_by_id_or_email_in_any_case(account):
    user, _ = account
    assert _export(str(user.pk))[0]["account"]["id"] == user.pk
    assert _export("MAI@Example.COM")[0]["account"]["id"] == user.pk


def test_an_account_with_nothing_exports_an_empty_memory():
    make_user("new@example.com")
    document, _ = _export("new@example.com")
    assert document["memory"] == []
    assert document["memory_meta"]["count"] == 0
    assert document["preferences"] is None
    assert document["conversations"] == [] and document["voice_sessions"] == []


def test_the_export_goes_to_a_file_with_output(account, tmp_path):
    target = tmp_path / "mai.json"
    out = StringIO()

    call_command("export_account", "mai@example.com", "--output", str(target), stdout=out, stderr=StringIO())

    assert json.loads(target.read_text(encoding="utf-8"))["memory"][0] == "Tên tôi là Nguyễn Thị Mai"
    assert out.getvalue() == ""
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("who", ["nobody@example.com", "987654", " "])
def test_an_unknown_account_is_a_clear_error_with_a_failing_exit_code(who, tmp_path):
    make_user("mai@example.com")
    target = tmp_path / "out.json"

    with pytest.raises(CommandError) as error:
        call_command("export_account", who, "--output", str(target))

    assert error.value.returncode == 1
    assert "No account" in str(error.value)
    assert not target.exists()


class _Recorder:
    def __init__(self) -> None:
        self.writes: list[int] = []

    def write(self, text: str) -> None:
        self.writes.append(len(text))


def test_a_large_account_is_written_as_it_is_read_one_message_at_a_time():
    user = make_user("big@example.com")
    for c in range(5):
        conversation = Conversation.objects.create(user=user, model="whizi/offline")
        Message.objects.bulk_create(
            Message(conversation=conversation, role="user", content=f"message {c}-{i} " + "x" * 200)
            for i in range(300)
        )
    recorder = _Recorder()

    summary = account_export(user=user, out=recorder)

    assert summary.messages == 1500
    # No single write holds more than one message: nothing was gathered up first.
    assert max(recorder.writes) < 400
    assert sum(recorder.writes) > 1500 * 200
