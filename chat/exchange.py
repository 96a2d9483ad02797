"""One exchange: the user's message saved, the model asked, the reply saved.

The user's message is saved before the model is called, so a failed call loses nothing;
the reply is saved with any memory pass it makes due, and the pass is published to the
worker only after that commit (memory.passes), so it never delays the reply.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from accounts.owner import Owner
from chat.errors import ChatModelFailed
from chat.limits import MAX_TITLE_CHARS, message_content_check
from chat.model_choice import chat_model_choose
from chat.models import Conversation, Message
from chat.prompt import ChatRequest, chat_request_build
from memory.passes import pass_queue_after_reply
from memory.reading import MemoryRead
from memory.tokens import count_tokens
from whizi.llm import Completion, ModelError, complete
from whizi.text import storable_text

log = logging.getLogger(__name__)


@dataclass
class Exchange:
    """A user message saved and its request assembled, waiting for the model's reply."""

    conversation: Conversation
    user_message: Message
    request: ChatRequest

    @property
    def model(self) -> str:
        return self.request.model


@dataclass(frozen=True)
class ChatReply:
    conversation: Conversation
    user_message: Message
    assistant_message: Message
    turns: int
    memory_attached: bool


def chat_exchange_begin(*, conversation: Conversation, content: object,
                        model: str | None = None) -> Exchange:
    """Check the input, save the user's message (switching model if asked) and assemble
    the request. Raises ChatInputError with nothing saved."""
    text = message_content_check(content)
    chosen = chat_model_choose(requested=model, current=conversation.model)
    # Started before the user's message is saved, so opening the reader's connection
    # overlaps those writes as well as the history load.
    memory = MemoryRead.start(owner=Owner.of(conversation))
    with transaction.atomic():
        # Locked so two sends to one conversation save their turns one after the other.
        Conversation.objects.select_for_update().filter(pk=conversation.pk).first()
        last = conversation.messages.order_by("-id").first()
        if last is not None and last.role == Message.Role.USER and last.content == text:
            # Sending again after a failed reply: answer the saved message, don't repeat it.
            user_message = last
        else:
            user_message = Message.objects.create(
                conversation=conversation, role=Message.Role.USER, content=text,
                content_tokens=count_tokens(text),
            )
        updates: dict[str, object] = {"model": chosen, "updated_at": timezone.now()}
        if not conversation.title:
            updates["title"] = _title_from(text)
        Conversation.objects.filter(pk=conversation.pk).update(**updates)
        for name, value in updates.items():
            setattr(conversation, name, value)
    request = chat_request_build(conversation=conversation, user_message=user_message, model=chosen,
                                 memory=memory)
    return Exchange(conversation=conversation, user_message=user_message, request=request)


def _title_from(text: str) -> str:
    first_line = " ".join(text.split())
    if len(first_line) <= MAX_TITLE_CHARS:
        return first_line
    return first_line[: MAX_TITLE_CHARS - 1].rstrip() + "…"


def chat_exchange_finish(*, exchange: Exchange, text: str, input_tokens: int = 0,
                         output_tokens: int = 0) -> ChatReply:
    """Save the reply, and queue the memory pass it makes due (published after commit)."""
    text = storable_text(text)
    if not text.strip():
        raise ChatModelFailed(ModelError("empty reply", kind="error"), user_message=exchange.user_message)
    conversation = exchange.conversation
    with transaction.atomic():
        assistant = Message.objects.create(
            conversation=conversation, role=Message.Role.ASSISTANT, content=text,
            model=exchange.model, input_tokens=input_tokens, output_tokens=output_tokens,
            content_tokens=count_tokens(text),
        )
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
        turns = conversation.messages.filter(id__lte=assistant.pk).count()
        try:
            with transaction.atomic():
                pass_queue_after_reply(owner=Owner.of(conversation), turns_after=turns,
                                       user_text=exchange.user_message.content, reply_id=assistant.pk,
                                       conversation_id=conversation.pk)
        except DatabaseError:
            # The reply matters more than one pass; the next trigger rewrites the whole list.
            log.exception("could not queue a memory pass for conversation %s", conversation.pk)
    return ChatReply(conversation=conversation, user_message=exchange.user_message,
                     assistant_message=assistant, turns=turns,
                     memory_attached=exchange.request.memory_attached)


def chat_reply(*, conversation: Conversation, content: object, model: str | None = None) -> ChatReply:
    """One complete exchange: save the message, ask the model, save the reply.

    Raises ChatInputError (nothing saved) or ChatModelFailed (the message is saved).
    """
    exchange = chat_exchange_begin(conversation=conversation, content=content, model=model)
    try:
        answer: Completion = complete(model=exchange.model, messages=exchange.request.messages,
                                      timeout=settings.WHIZI_CHAT_TIMEOUT)
    except ModelError as exc:
        log.warning("chat model %s failed (%s) in conversation %s", exchange.model, exc.kind,
                    conversation.pk)
        raise ChatModelFailed(exc, user_message=exchange.user_message) from exc
    return chat_exchange_finish(exchange=exchange, text=answer.text,
                                input_tokens=answer.input_tokens, output_tokens=answer.output_tokens)
