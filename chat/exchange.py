"""One exchange: the user's message saved, the model asked, the reply saved.

The user's message is saved before the model is called, so a failed call loses nothing;
the reply is saved with any memory pass it makes due, and the pass is published to the
worker only after that commit (memory.passes), so it never delays the reply.

No database connection or thread is held while the model answers: the two database
steps (begin, finish) are short and give their connection back (whizi.db), and the
memory read and the model call are awaited.

Two exchanges rewrite the end of a conversation, and both keep its turns and the memory
cadence right. A conversation's turn count is its number of messages, so a removed
message is a turn less and its replacement the same turn again:
- editing the last user message removes it and the reply after it when the edited
  message is saved (before the model is called, so a failed call keeps the new text);
- regenerating the last reply keeps the old one until the new one is whole, and swaps
  them in one transaction (a stopped or failed regenerate loses nothing).
A pass waiting on a removed message reads through its successor instead, so it is
neither skipped nor made to read a removed reply (memory's pass_follow_removed); a
regenerated reply whose turn a pass already read makes no second pass for that turn,
while an edited message (new words) makes the pass its turn makes due.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.locks import owned_row_lock
from accounts.owner import Owner
from chat.admission import ChatAdmission, chat_start_admit
from chat.errors import ChatInputError, ChatModelFailed
from chat.limits import MAX_TITLE_CHARS, message_content_check
from chat.model_choice import chat_model_choose, model_reply_tokens
from chat.models import Conversation, Message
from chat.prompt import ChatRequest, chat_request_assemble, history_rows
from memory.services import (
    MemoryRead,
    Trigger,
    count_tokens,
    pass_asked_for,
    pass_follow_removed,
    pass_request,
)
from whizi.db import db_release, db_step_queued, sql_now, sql_row, sql_table
from whizi.llm import Completion, ModelError, ReplyStream, acomplete, astream
from whizi.metrics import metric_chat_reply, metric_model_usage
from whizi.text import storable_text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Exchange:
    """A user message saved and its request assembled, waiting for the model's reply."""

    conversation: Conversation
    user_message: Message
    request: ChatRequest
    memory: MemoryRead
    memory_asked: bool  # the message asks Whizi to remember or forget (read before any lock)
    # The reply this exchange's reply takes the place of (regenerate), removed when it is saved.
    replaces: int | None = None

    @property
    def model(self) -> str:
        return self.request.model

    @property
    def provider_user(self) -> str:
        """A stable pseudonym of the owner for the provider's abuse monitoring (no id, no name)."""
        key = f"{settings.SECRET_KEY}:{Owner.of(self.conversation).key}"
        return hashlib.sha256(key.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ChatReply:
    conversation: Conversation
    user_message: Message
    assistant_message: Message
    turns: int
    # A memory pass is to read through this reply (made due by it, joined, or moved onto
    # it by a regenerate): only then can the reply carry a memory mark.
    pass_through_reply: bool = False


def chat_exchange_open(*, conversation: Conversation, content: object,
                       model: str | None = None, edit_of: object = None) -> Exchange:
    """Check the input, save the user's message (switching model if asked) and assemble
    the request; the memory read is started and still running. Raises ChatInputError
    with nothing saved.

    `edit_of`: the id of the conversation's last user message, which the new text
    replaces (it and the reply after it are removed)."""
    text = message_content_check(content)
    chosen = chat_model_choose(requested=model, current=conversation.model)
    memory_asked = pass_asked_for(text)
    # Started before the user's message is saved, so opening the reader's connection
    # overlaps those writes as well as the history load.
    memory = MemoryRead.start(owner=Owner.of(conversation))
    with transaction.atomic():
        # Its owner, then the conversation (accounts.locks): two sends to one conversation
        # save their turns one after the other, and none can deadlock with a deletion.
        # Gone (deleted with its owner) is a 404 with nothing saved.
        locked = owned_row_lock(Conversation, pk=conversation.pk, owner=Owner.of(conversation))
        conversation.user_id, conversation.guest_id = locked.user_id, locked.guest_id
        removed_from = None if edit_of is None else _edit_remove(conversation=conversation, last=edit_of)
        # The newest messages: the last one, and the first batch of the history (one read).
        newest = history_rows(conversation=conversation)
        last = newest[0] if newest else None
        if edit_of is None and last is not None and last[1] == Message.Role.USER and last[2] == text:
            # Sending again after a failed reply: answer the saved message, don't repeat it.
            user_message = conversation.messages.get(pk=last[0])
        else:
            user_message = Message.objects.create(
                conversation=conversation, role=Message.Role.USER, content=text,
                content_tokens=count_tokens(text),
            )
        if removed_from is not None:
            pass_follow_removed(conversation_id=conversation.pk, removed_from=removed_from,
                                successor=user_message.pk)
        updates: dict[str, object] = {"model": chosen, "updated_at": timezone.now()}
        if not conversation.title:
            updates["title"] = _title_from(text)
        Conversation.objects.filter(pk=conversation.pk).update(**updates)
        for name, value in updates.items():
            setattr(conversation, name, value)
    request = chat_request_assemble(conversation=conversation, user_message=user_message, model=chosen,
                                    newest=newest)
    return Exchange(conversation=conversation, user_message=user_message, request=request, memory=memory,
                    memory_asked=memory_asked)


def _edit_remove(*, conversation: Conversation, last: object) -> int:
    """Remove the last user message and what follows it. Raises ChatInputError."""
    last_user = (conversation.messages.filter(role=Message.Role.USER).order_by("-id")
                 .values_list("id", flat=True).first())
    if last_user is None or str(last_user) != str(last):
        raise ChatInputError(_("Only your last message can be edited."))
    conversation.messages.filter(id__gte=last_user).delete()
    return last_user


def chat_regenerate_open(*, conversation: Conversation, reply_id: object,
                         model: str | None = None) -> Exchange:
    """An exchange that writes the conversation's last reply again, for the user message
    before it; the old reply stays until the new one is saved. Raises ChatInputError."""
    chosen = chat_model_choose(requested=model, current=conversation.model)
    memory = MemoryRead.start(owner=Owner.of(conversation))
    with transaction.atomic():
        locked = owned_row_lock(Conversation, pk=conversation.pk, owner=Owner.of(conversation))
        conversation.user_id, conversation.guest_id = locked.user_id, locked.guest_id
        last_two = list(conversation.messages.order_by("-id")[:2])
        if (len(last_two) < 2 or last_two[0].role != Message.Role.ASSISTANT
                or str(last_two[0].pk) != str(reply_id) or last_two[1].role != Message.Role.USER):
            raise ChatInputError(_("Only the last reply can be written again."))
        reply, user_message = last_two
        updates: dict[str, object] = {"model": chosen, "updated_at": timezone.now()}
        Conversation.objects.filter(pk=conversation.pk).update(**updates)
        for name, value in updates.items():
            setattr(conversation, name, value)
    request = chat_request_assemble(conversation=conversation, user_message=user_message, model=chosen)
    return Exchange(conversation=conversation, user_message=user_message, request=request, memory=memory,
                    memory_asked=pass_asked_for(user_message.content), replaces=reply.pk)


def chat_exchange_begin(*, conversation: Conversation, content: object,
                        model: str | None = None) -> Exchange:
    """chat_exchange_open(), then the memory block, waited for in this thread (its
    connection given back first)."""
    exchange = chat_exchange_open(conversation=conversation, content=content, model=model)
    db_release()
    return replace(exchange, request=exchange.request.with_memory(exchange.memory.snapshot()))


async def chat_exchange_ready(exchange: Exchange) -> Exchange:
    """The exchange with its memory block, once the read is in or its deadline passed."""
    return replace(exchange, request=exchange.request.with_memory(await exchange.memory.asnapshot()))


def _title_from(text: str) -> str:
    first_line = " ".join(text.split())
    if len(first_line) <= MAX_TITLE_CHARS:
        return first_line
    return first_line[: MAX_TITLE_CHARS - 1].rstrip() + "…"


def _call(exchange: Exchange) -> dict[str, object]:
    return {"model": exchange.model, "messages": exchange.request.messages,
            "timeout": settings.WHIZI_CHAT_TIMEOUT, "max_tokens": model_reply_tokens(exchange.model),
            "user": exchange.provider_user}


def chat_exchange_stream(exchange: Exchange) -> ReplyStream:
    """The reply as it is written; `.completion` once it is whole. Raises ModelError."""
    return astream(**_call(exchange))


def chat_model_failed(exchange: Exchange, error: ModelError, *, streamed: bool) -> ChatModelFailed:
    """Log (once, with the provider's error class) and count a reply that did not come (a
    streamed failure is an HTTP 200 whose `error` event only the browser sees: the metric
    is where monitoring sees it)."""
    log.warning("chat model %s failed: %s (%s)%s, conversation %s", exchange.model, error.kind,
                error.provider_error, " mid-stream" if streamed else "", exchange.conversation.pk)
    metric_chat_reply(model=exchange.model, streamed=streamed, outcome=error.kind)
    return ChatModelFailed(error, user_message=exchange.user_message)


def chat_exchange_finish(*, exchange: Exchange, completion: Completion, streamed: bool = False) -> ChatReply:
    """Save the reply, and queue the memory pass it makes due (published after commit)."""
    # Counted before the save: the tokens were spent even if the conversation is gone.
    metric_model_usage(model=completion.model, use="chat", input_tokens=completion.input_tokens,
                       output_tokens=completion.output_tokens, cost=completion.cost)
    text = storable_text(completion.text)
    if not text.strip():
        metric_chat_reply(model=exchange.model, streamed=streamed, outcome="empty")
        raise ChatModelFailed(ModelError("empty reply", kind="other", retryable=True),
                              user_message=exchange.user_message)
    conversation = exchange.conversation
    with transaction.atomic():
        # As in chat_exchange_open: a conversation deleted (or merged into an account)
        # while the model answered is a 404 with no reply saved, or the account's.
        owner = Owner.of(owned_row_lock(Conversation, pk=conversation.pk, owner=Owner.of(conversation)))
        if exchange.replaces is not None:
            newest = conversation.messages.order_by("-id").values_list("id", flat=True).first()
            if newest != exchange.replaces:  # another window sent, edited or regenerated meanwhile
                raise ChatInputError(_("This chat changed in another window. Reload the page to see it."))
            conversation.messages.filter(pk=exchange.replaces).delete()
        assistant = Message.objects.create(
            conversation=conversation, role=Message.Role.ASSISTANT, content=text,
            model=completion.model, input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens, cost=completion.cost,
            content_tokens=count_tokens(text),
        )
        turns = _conversation_used(conversation_id=conversation.pk, through_message_id=assistant.pk)
        read_already = exchange.replaces is not None and pass_follow_removed(
            conversation_id=conversation.pk, removed_from=exchange.replaces, successor=assistant.pk)
        through_reply = read_already
        try:
            if not read_already:
                trigger = Trigger.REQUEST if exchange.memory_asked else Trigger.CADENCE
                through_reply = pass_request(owner=owner, trigger=trigger, turns_after=turns,
                                             through_message_id=assistant.pk,
                                             conversation_id=conversation.pk) is not None
        except DatabaseError:
            # The reply matters more than one pass; the next trigger rewrites the whole list.
            log.exception("could not queue a memory pass for conversation %s", conversation.pk)
    metric_chat_reply(model=exchange.model, streamed=streamed, outcome="ok")
    return ChatReply(conversation=conversation, user_message=exchange.user_message,
                     assistant_message=assistant, turns=turns, pass_through_reply=through_reply)


def _conversation_used(*, conversation_id: int, through_message_id: int) -> int:
    """Move the conversation to the top of its list (updated_at) and count its turns
    through `through_message_id`, in one statement (the ORM would take two)."""
    turns = f"SELECT COUNT(*) FROM {sql_table(Message)} WHERE conversation_id = %s AND id <= %s"
    now = sql_now(Conversation, "updated_at")
    return sql_row(f"UPDATE {sql_table(Conversation)} SET updated_at = %s WHERE id = %s RETURNING ({turns})",
                   [now, conversation_id, conversation_id, through_message_id])[0]


async def chat_reply_async(*, begin: Callable[[], Exchange],
                           admission: ChatAdmission | None = None) -> ChatReply:
    """One complete exchange, holding no connection or thread while the model answers.

    `begin` checks and saves the user's message (chat_exchange_open) in a short database
    step; `admission`, the chat's place in line if the request already has one. Raises
    ChatInputError (nothing saved) or ChatModelFailed (the message is saved).
    """
    admission = admission or await chat_start_admit()
    try:
        exchange = await chat_exchange_ready(await db_step_queued(begin))
        answer = asyncio.ensure_future(acomplete(**_call(exchange)))
        await asyncio.sleep(0)  # the call's set-up runs until it first waits on the network
    finally:
        admission.release()  # the start is done: the next chat may begin
    try:
        completion = await answer
    except ModelError as exc:
        raise chat_model_failed(exchange, exc, streamed=False) from exc
    return await db_step_queued(chat_exchange_finish, exchange=exchange, completion=completion)


def chat_reply(*, conversation: Conversation, content: object, model: str | None = None) -> ChatReply:
    """chat_reply_async() for a caller in a thread (the page without JavaScript, tests)."""

    def begin() -> Exchange:
        return chat_exchange_open(conversation=conversation, content=content, model=model)

    return async_to_sync(chat_reply_async)(begin=begin)
