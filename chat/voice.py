"""Voice sessions: the prompt they start with, their transcript, and their one pass."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.locks import owned_row_lock, owner_hold
from accounts.owner import Owner
from chat.errors import ChatInputError, ChatNotAllowed
from chat.limits import VOICE_MAX_TURN_CHARS, VOICE_MAX_TURNS
from chat.models import Message, VoiceSession, VoiceTurn
from memory.services import (
    MemoryRead,
    MemorySnapshot,
    Trigger,
    memory_absent_rules,
    memory_system_message,
    pass_request,
)
from whizi.text import storable_text

VOICE_SYSTEM_PROMPT = (
    "You are Whizi, talking with the user by voice. Keep answers short and natural to "
    "say aloud, in the language the user speaks."
)


def voice_instructions(*, snapshot: MemorySnapshot | None) -> str:
    """The voice model's prompt: the voice rules plus the saved list, or, with none to show,
    the same rules of how memory works (it saves nothing itself, knows no earlier talk)."""
    block = memory_system_message(snapshot.lines) if snapshot is not None else None
    return VOICE_SYSTEM_PROMPT + "\n\n" + (block["content"] if block is not None else memory_absent_rules())


def voice_session_open(*, owner: Owner) -> tuple[VoiceSession, MemoryRead]:
    """A new voice session, and the memory read for its prompt (started first, so it runs
    while the session row is written)."""
    memory = MemoryRead.start(owner=owner)
    with transaction.atomic():
        owner_hold(owner=owner)  # an owner deleted meanwhile is a 404 (accounts.locks)
        return VoiceSession.objects.create(**owner.lookup), memory


def voice_turn_add(*, session: VoiceSession, role: object, text: object) -> VoiceTurn:
    """Append one transcript turn. Raises ChatInputError or ChatNotAllowed (nothing saved)."""
    if role not in (Message.Role.USER, Message.Role.ASSISTANT):
        raise ChatInputError(_('The role must be "user" or "assistant".'), field="role")
    if isinstance(text, str):
        text = storable_text(text)
    if not isinstance(text, str) or not text.strip():
        raise ChatInputError(_("The turn has no text."), field="text")
    text = text.strip()
    if len(text) > VOICE_MAX_TURN_CHARS:
        raise ChatInputError(
            _("A voice turn can be at most %(count)d characters.") % {"count": VOICE_MAX_TURN_CHARS},
            field="text",
        )
    with transaction.atomic():
        # Locked so two turns arriving at once cannot both pass the cap or land after the end;
        # its owner first (accounts.locks), and gone with its owner is a 404.
        locked = owned_row_lock(VoiceSession, pk=session.pk)
        if locked.ended_at is not None:
            raise ChatNotAllowed(_("This voice session has ended."))
        if locked.turns.count() >= VOICE_MAX_TURNS:
            full = _("This voice session is full (%(count)d turns). Start a new one.")
            raise ChatNotAllowed(full % {"count": VOICE_MAX_TURNS})
        return VoiceTurn.objects.create(session=locked, role=role, text=text)


def voice_session_end(*, session: VoiceSession) -> None:
    """End the session and queue its one memory pass; ending again queues nothing."""
    with transaction.atomic():
        # Locked so two end requests at once queue one pass between them; its owner first
        # (accounts.locks), and gone with its owner is a 404.
        locked = owned_row_lock(VoiceSession, pk=session.pk)
        if locked.ended_at is None:
            locked.ended_at = timezone.now()
            locked.save(update_fields=["ended_at"])
        pass_request(owner=Owner.of(locked), trigger=Trigger.VOICE, voice_session_id=locked.pk)
