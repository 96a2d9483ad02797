"""Memory test helpers: owners, conversations and passes made directly from the models.

Personas: `user` is a signed-in account, `guest` a visitor with no account; each owns
one memory list, and a pass only ever touches its own owner's list.
"""

from __future__ import annotations

import pytest

from accounts.models import Guest
from accounts.owner import Owner
from chat.models import Conversation, Message, VoiceSession, VoiceTurn
from memory.models import Memory, MemoryPass
from whizi.llm.scripted import Script


@pytest.fixture
def guest(db):
    return Guest.objects.create()


@pytest.fixture
def model(settings):
    """The scripted memory model, in this process (the worker has its own queue)."""
    settings.WHIZI_MEMORY_MODEL = "scripted/memory-direct"
    return Script("memory-direct").reset()


def owner_of(who) -> Owner:
    return Owner(guest_id=who.pk) if isinstance(who, Guest) else Owner(user_id=who.pk)


def save_memory(who, lines: list[str]) -> Memory:
    from memory.tokens import count_list_tokens

    memory, _ = Memory.objects.update_or_create(
        **owner_of(who).lookup, defaults={"lines": lines, "tokens": count_list_tokens(lines)}
    )
    return memory


def saved_lines(who) -> list[str]:
    return list(Memory.objects.filter(**owner_of(who).lookup).values_list("lines", flat=True).first() or [])


def chat(who, *contents: str, conversation: Conversation | None = None) -> Message:
    """Add alternating user/assistant messages; returns the last one."""
    conversation = conversation or Conversation.objects.create(**owner_of(who).lookup, model="whizi/offline")
    message = None
    count = conversation.messages.count()
    for index, content in enumerate(contents):
        role = "user" if (count + index) % 2 == 0 else "assistant"
        message = Message.objects.create(conversation=conversation, role=role, content=content)
    return message


def queue_pass(who, *, through: Message | None = None, voice: VoiceSession | None = None,
               trigger: str = MemoryPass.Trigger.REQUEST) -> MemoryPass:
    return MemoryPass.objects.create(**owner_of(who).lookup, trigger=trigger,
                                     through_message_id=through.pk if through else None,
                                     voice_session_id=voice.pk if voice else None)


def queue_after_reply(user_message: Message, reply: Message) -> MemoryPass | None:
    """What chat does once a reply is saved: ask memory whether the exchange makes a pass due."""
    from memory.passes import Trigger, pass_asked_for, pass_request

    conversation = reply.conversation
    asked = pass_asked_for(user_message.content)
    return pass_request(
        owner=Owner.of(conversation), trigger=Trigger.REQUEST if asked else Trigger.CADENCE,
        through_message_id=reply.pk, turns_after=conversation.messages.filter(id__lte=reply.pk).count(),
        conversation_id=conversation.pk,
    )


def voice(who, *texts: str) -> VoiceSession:
    session = VoiceSession.objects.create(**owner_of(who).lookup)
    for index, text in enumerate(texts):
        VoiceTurn.objects.create(session=session, role="user" if index % 2 == 0 else "assistant", text=text)
    return session
