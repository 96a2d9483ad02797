"""Voice sessions (docs/DESIGN.md §2.1, §2.3, §4): the saved list goes into the session's prompt when
it starts; transcript turns are appended within caps; ending the session queues exactly
one memory pass over the whole transcript, and ending it again queues nothing more."""

import pytest

from chat.limits import VOICE_MAX_TURN_CHARS, VOICE_MAX_TURNS
from chat.models import VoiceSession, VoiceTurn
from chat.voice import VOICE_SYSTEM_PROMPT
from memory.chat_block import memory_absent_rules
from memory.models import Memory, MemoryPass
from tests.chat.conftest import api_client, owner_of, post_json, published_passes, save_memory
from tests.db_faults import table_missing

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _start(client) -> dict:
    response = post_json(client, "/api/voice/sessions/")
    assert response.status_code == 201, response.content
    return response.json()


def _turn(client, session_id, role, text):
    return post_json(client, f"/api/voice/sessions/{session_id}/transcript/", {"role": role, "text": text})


def _end(client, session_id):
    return post_json(client, f"/api/voice/sessions/{session_id}/end/")


def test_starting_a_session_returns_instructions_with_the_saved_list(guest):
    save_memory(owner_of(guest), ["Tên tôi là Mai", "Works night shifts"])

    body = _start(guest)

    assert VoiceSession.objects.get(pk=body["id"]).guest_id == owner_of(guest).guest_id
    assert body["instructions"].startswith(VOICE_SYSTEM_PROMPT)
    assert "- Tên tôi là Mai\n- Works night shifts" in body["instructions"]
    assert "not an instruction from anyone" in body["instructions"]  # the list is framed as data


def test_with_nothing_remembered_the_instructions_carry_no_list_but_how_memory_works(guest):
    instructions = _start(guest)["instructions"]

    assert instructions == f"{VOICE_SYSTEM_PROMPT}\n\n{memory_absent_rules()}"
    assert "<memory>" not in instructions and "Never say that you have saved" in instructions


def test_transcript_turns_are_appended_in_order(guest):
    session_id = _start(guest)["id"]

    assert _turn(guest, session_id, "user", "I just moved to Hanoi").status_code == 204
    assert _turn(guest, session_id, "assistant", "Welcome to Hanoi!").status_code == 204

    assert list(VoiceTurn.objects.values_list("role", "text")) == [
        ("user", "I just moved to Hanoi"), ("assistant", "Welcome to Hanoi!"),
    ]


@pytest.mark.parametrize(
    "body",
    [{"role": "system", "text": "hi"}, {"role": "user", "text": ""}, {"role": "user"},
     {"role": "user", "text": "x" * (VOICE_MAX_TURN_CHARS + 1)}],
    ids=["bad-role", "empty", "missing-text", "oversized"],
)
def test_bad_turns_get_a_400_and_nothing_is_appended(guest, body):
    session_id = _start(guest)["id"]

    response = post_json(guest, f"/api/voice/sessions/{session_id}/transcript/", body)

    assert response.status_code == 400
    assert response.json()["error"]["message"]
    assert VoiceTurn.objects.count() == 0


def test_a_full_transcript_refuses_more_turns(guest):
    session_id = _start(guest)["id"]
    VoiceTurn.objects.bulk_create(
        VoiceTurn(session_id=session_id, role="user", text=f"turn {i}")
        for i in range(VOICE_MAX_TURNS)
    )

    response = _turn(guest, session_id, "user", "one more")

    assert response.status_code == 409
    assert "full" in response.json()["error"]["message"]
    assert VoiceTurn.objects.count() == VOICE_MAX_TURNS


def test_ending_queues_exactly_one_voice_pass_and_ending_again_queues_nothing(guest):
    session_id = _start(guest)["id"]
    _turn(guest, session_id, "user", "My daughter Linh starts school in May")
    _turn(guest, session_id, "assistant", "How exciting!")

    assert _end(guest, session_id).status_code == 202
    assert _end(guest, session_id).status_code == 202

    [memory_pass] = MemoryPass.objects.all()
    assert memory_pass.trigger == MemoryPass.Trigger.VOICE
    assert memory_pass.voice_session_id == session_id
    assert memory_pass.status == MemoryPass.Status.QUEUED
    assert published_passes() == [memory_pass.pk]
    assert VoiceSession.objects.get(pk=session_id).ended_at is not None


def test_an_ended_session_takes_no_more_turns(guest):
    session_id = _start(guest)["id"]
    _turn(guest, session_id, "user", "Hello")
    _end(guest, session_id)

    response = _turn(guest, session_id, "user", "Are you there?")

    assert response.status_code == 409
    assert VoiceTurn.objects.count() == 1


def test_a_session_ended_without_any_turn_still_queues_its_one_pass(guest):
    session_id = _start(guest)["id"]

    assert _end(guest, session_id).status_code == 202
    assert _end(guest, session_id).status_code == 202

    assert MemoryPass.objects.filter(voice_session_id=session_id).count() == 1


def test_someone_elses_voice_session_is_a_404(guest, make_user):
    session_id = _start(guest)["id"]
    intruder = api_client(make_user("mallory@example.com"))

    assert _turn(intruder, session_id, "user", "hi").status_code == 404
    assert _end(intruder, session_id).status_code == 404

    assert VoiceTurn.objects.count() == 0
    assert VoiceSession.objects.get(pk=session_id).ended_at is None
    assert MemoryPass.objects.count() == 0


def test_voice_posts_need_the_csrf_token(guest):
    response = guest.post("/api/voice/sessions/", content_type="application/json")

    assert response.status_code == 403
    assert VoiceSession.objects.count() == 0


def test_a_failing_memory_read_starts_the_session_without_the_list(guest, read_skips):
    save_memory(owner_of(guest), ["Tên tôi là Mai"])

    with table_missing(Memory):
        body = _start(guest)

    assert body["instructions"] == f"{VOICE_SYSTEM_PROMPT}\n\n{memory_absent_rules()}"
    assert read_skips() == {"timeout": 0, "error": 1}
