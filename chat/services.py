"""Chat and voice: the one place a chat request is assembled and a reply is saved.

A text chat request is, in this order (DESIGN 2.1):
  1. the base system prompt;
  2. the project's instructions, as their own system message (that project's chats only);
  3. the saved memory list, as its own system message framed as data about the user;
  4. as much of the conversation's history as fits the model's context budget;
  5. the new user message.

The memory read (3) runs in a worker thread while 1, 2, 4 and 5 are built (DESIGN 2.4).
It gets WHIZI_MEMORY_READ_TIMEOUT from the moment it starts; if it fails or is late, the
request goes on without the block, and the skip is logged and counted.

The user's message is saved before the model is called, so a failed call loses nothing;
the reply is saved with any memory pass it makes due, and the pass is published to the
worker only after that commit (memory.triggers), so it never delays the reply.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, transaction
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.owner import Owner
from accounts.preferences import chat_models, preference_read
from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from memory.models import MemoryPass
from memory.prompts import MEMORY_SYSTEM_MESSAGE, memory_system_message
from memory.services import MemorySnapshot, memory_read
from memory.tokens import count_tokens
from memory.triggers import queue_pass_after_reply, queue_voice_pass
from whizi.llm import Completion, ModelError, complete, litellm_module

log = logging.getLogger(__name__)

# Input caps. A message is held well under the 20,000-token transcript cap of a memory
# pass (DESIGN 2.5): 20,000 characters is at most ~20,000 tokens even for CJK text.
MAX_MESSAGE_CHARS = 20_000
MAX_PROJECT_NAME_CHARS = 200
MAX_PROJECT_INSTRUCTIONS_CHARS = 8_000
MAX_TITLE_CHARS = 60
# A voice turn is one utterance; a session of 400 turns is well over an hour of talk.
VOICE_MAX_TURN_CHARS = 4_000
VOICE_MAX_TURNS = 400

# Context budget for a model litellm has no figures for (the offline model, scripted
# models, custom deployments): the smallest context any current chat model offers.
DEFAULT_CONTEXT_TOKENS = 8_192
# Room left for the reply when the budget is a model's whole context window.
REPLY_RESERVE_TOKENS = 1_024
# Per-message framing a provider adds around each message's content.
MESSAGE_OVERHEAD_TOKENS = 4

BASE_SYSTEM_PROMPT = (
    "You are Whizi, a helpful, friendly assistant. Answer clearly and concisely, in the "
    "language the user writes in."
)
PROJECT_SYSTEM_MESSAGE = (
    'Instructions for this project ("{name}"), set by the user. Follow them in this '
    "conversation:\n{instructions}"
)
VOICE_SYSTEM_PROMPT = (
    "You are Whizi, talking with the user by voice. Keep answers short and natural to "
    "say aloud, in the language the user speaks."
)

# How long the memory read may keep a database connection busy after the request has
# stopped waiting for it: long enough never to cut a read the request still wants,
# short enough that reads stuck on a locked table free their threads.
READ_STATEMENT_TIMEOUT_FACTOR = 10
# Memory reads in flight at once per process. When the database is stuck every slot can
# be busy; later reads then queue, time out and are skipped like any other late read.
_memory_readers = ThreadPoolExecutor(max_workers=8, thread_name_prefix="whizi-memory-read")

SKIP_COUNTER_KEY = "chat:memory_read_skipped:{reason}"
SKIP_REASONS = ("timeout", "error")


class ChatInputError(Exception):
    """The request was refused before anything was saved."""

    def __init__(self, message: str, *, field: str = "content") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ChatNotAllowed(Exception):
    """The voice session no longer takes turns (ended, or full); nothing was saved."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ChatModelFailed(Exception):
    """The chat model gave no reply. The user's message is saved; trying again is safe."""

    def __init__(self, error: ModelError, *, user_message: Message) -> None:
        super().__init__(str(error))
        self.kind = error.kind
        self.retryable = error.retryable
        self.user_message = user_message


# ---------------------------------------------------------------- models and budgets


def chat_model_choose(*, requested: str | None, current: str | None = None,
                      owner: Owner | None = None) -> str:
    """The model for the next reply: the one asked for, else the conversation's, else
    the owner's preferred one, else the first configured. Raises ChatInputError."""
    models = chat_models()
    if requested:
        if requested not in models:
            raise ChatInputError(
                _("That chat model is not available. Pick one from the list."), field="model"
            )
        return requested
    if current in models:
        return current
    if owner is not None:
        preferred = preference_read(owner=owner).chat_model
        if preferred:  # preference_read only returns a configured model
            return preferred
    return models[0]


@lru_cache(maxsize=64)
def model_context_tokens(model: str) -> int:
    """The model's input budget from litellm's model map, or a safe default."""
    try:
        info = litellm_module().get_model_info(model)
    except Exception:  # litellm raises a bare Exception for an unmapped model
        return DEFAULT_CONTEXT_TOKENS
    max_input = info.get("max_input_tokens")
    if max_input:
        return int(max_input)
    max_tokens = info.get("max_tokens")
    if max_tokens:
        return max(int(max_tokens) - REPLY_RESERVE_TOKENS, REPLY_RESERVE_TOKENS)
    return DEFAULT_CONTEXT_TOKENS


def _message_tokens(content: str) -> int:
    return count_tokens(content) + MESSAGE_OVERHEAD_TOKENS


@lru_cache(maxsize=1)
def _memory_reserve_tokens() -> int:
    """The memory block's largest size: the cap on the list plus its framing. History is
    budgeted around it, so trimming never has to wait for the read."""
    framing = count_tokens(MEMORY_SYSTEM_MESSAGE.format(lines=""))
    return settings.WHIZI_MEMORY_MAX_TOKENS + framing + MESSAGE_OVERHEAD_TOKENS


# ---------------------------------------------------------------- the memory read


def _read_memory_in_thread(owner: Owner, statement_timeout_ms: int) -> MemorySnapshot:
    # This thread has its own database connection: bound how long it may wait on the
    # database, and close it afterwards so pool threads never hold idle connections.
    _connect_outside_the_pool()
    try:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('statement_timeout', %s, false)",
                               [str(statement_timeout_ms)])
        return memory_read(owner=owner)
    finally:
        connections.close_all()


def _connect_outside_the_pool() -> None:
    """Reader threads connect directly, never through the request pool
    (WHIZI_DB_POOL_MAX_SIZE): a read queued behind requests for a pooled connection
    times out exactly when the server is busiest, while its request holds a pooled
    connection waiting for it (bench/load.py, 200 guests: 60% of reads skipped). These
    connections stay bounded: one per reader thread, closed after each read."""
    db = connections[DEFAULT_DB_ALIAS]
    options = db.settings_dict.get("OPTIONS", {})
    if "pool" in options and db.connection is None:
        # A copy: the dict is shared with settings.DATABASES and every other thread.
        db.settings_dict = {**db.settings_dict,
                            "OPTIONS": {k: v for k, v in options.items() if k != "pool"}}


@dataclass
class MemoryRead:
    """A memory read started in the background; `.snapshot()` waits at most until its
    deadline and returns None when the read failed or is late (or memory is switched
    off by the operator, WHIZI_MEMORY_ENABLED: then nothing is read at all)."""

    owner: Owner
    future: Future | None
    deadline: float

    @classmethod
    def start(cls, *, owner: Owner) -> MemoryRead:
        if not settings.WHIZI_MEMORY_ENABLED:  # operator switch: no read, no block
            return cls(owner=owner, future=None, deadline=0.0)
        timeout = settings.WHIZI_MEMORY_READ_TIMEOUT
        statement_timeout_ms = max(1000, int(timeout * 1000 * READ_STATEMENT_TIMEOUT_FACTOR))
        future = _memory_readers.submit(_read_memory_in_thread, owner, statement_timeout_ms)
        return cls(owner=owner, future=future, deadline=time.monotonic() + timeout)

    def snapshot(self) -> MemorySnapshot | None:
        if self.future is None:  # memory switched off: not a skip, nothing to count
            return None
        try:
            return self.future.result(timeout=max(0.0, self.deadline - time.monotonic()))
        except FutureTimeout:
            reason = "timeout"
        except Exception as exc:  # MemoryUnavailable, or the connection itself failed
            reason = "error"
            log.debug("memory read error: %s", type(exc).__name__)
        memory_read_skip_count(reason=reason, owner=self.owner)
        return None


def memory_read_skip_count(*, reason: str, owner: Owner) -> None:
    """Log and count a request that went on without memory.

    The counter is a Redis key in the Django cache (`chat:memory_read_skipped:timeout`
    and `…:error`), shared by every web process; see memory_read_skips().
    """
    log.warning("memory read %s for %s: replying without memory",
                "timed out" if reason == "timeout" else "failed", owner.key)
    key = SKIP_COUNTER_KEY.format(reason=reason)
    try:
        cache.add(key, 0, timeout=None)
        cache.incr(key)
    except Exception as exc:  # the cache being down must not fail the reply either
        log.warning("could not count a memory read skip: %s", type(exc).__name__)


def memory_read_skips() -> dict[str, int]:
    """How many requests went on without memory, by reason, since the counters started."""
    return {reason: int(cache.get(SKIP_COUNTER_KEY.format(reason=reason)) or 0)
            for reason in SKIP_REASONS}


# ---------------------------------------------------------------- projects and conversations


def conversation_for_owner(*, owner: Owner, conversation_id: object) -> Conversation:
    """The owner's conversation with this id; 404 for anything else, guessed ids included."""
    try:
        pk = int(str(conversation_id))
    except ValueError:
        raise Http404 from None
    return get_object_or_404(Conversation.objects.for_owner(owner).select_related("project"), pk=pk)


def project_create(*, owner: Owner, name: str, instructions: str) -> Project:
    name = storable_text(name or "").strip()
    instructions = storable_text(instructions or "").strip()
    if not name:
        raise ChatInputError(_("Give the project a name."), field="name")
    if len(name) > MAX_PROJECT_NAME_CHARS:
        raise ChatInputError(
            _("A project name can be at most %(count)d characters.") % {"count": MAX_PROJECT_NAME_CHARS},
            field="name",
        )
    if len(instructions) > MAX_PROJECT_INSTRUCTIONS_CHARS:
        raise ChatInputError(
            _("Project instructions can be at most %(count)d characters.")
            % {"count": MAX_PROJECT_INSTRUCTIONS_CHARS},
            field="instructions",
        )
    return Project.objects.create(**owner.lookup, name=name, instructions=instructions)


def conversation_start(*, owner: Owner, model: str | None = None,
                       project: Project | None = None) -> Conversation:
    """A new, empty conversation. Raises ChatInputError for an unknown model."""
    chosen = chat_model_choose(requested=model, owner=owner)
    if project is not None and Owner.of(project) != owner:
        raise ChatInputError(_("That project was not found."), field="project")
    return Conversation.objects.create(**owner.lookup, model=chosen, project=project)


# Lone UTF-16 surrogate halves: valid in a JSON string escape, not encodable as UTF-8.
_SURROGATES = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> str:
    """The text without what PostgreSQL cannot store: NUL characters and lone surrogate
    halves (a client can send either as a JSON escape, a model can answer with them).
    Neither is anything a person can read, so nothing is lost."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    return _SURROGATES.sub("", text)


def message_content_check(content: object) -> str:
    """The message text to save. Raises ChatInputError for empty or oversized text."""
    if isinstance(content, str):
        content = storable_text(content)
    if not isinstance(content, str) or not content.strip():
        raise ChatInputError(_("Type a message first."))
    content = content.strip()
    if len(content) > MAX_MESSAGE_CHARS:
        raise ChatInputError(
            _("A message can be at most %(count)d characters.") % {"count": MAX_MESSAGE_CHARS}
        )
    return content


# ---------------------------------------------------------------- request assembly


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: list[dict[str, str]]
    memory_attached: bool
    history_messages: int


def _history_within(*, conversation: Conversation, before_id: int, budget: int) -> list[dict[str, str]]:
    """The newest messages before `before_id` that fit in `budget` tokens, oldest first.

    Read newest-first in batches, so a long conversation costs no more than the part
    that fits.
    """
    picked: list[dict[str, str]] = []
    used = 0
    batch = 100
    last_id = before_id
    while True:
        rows = list(
            conversation.messages.filter(id__lt=last_id)
            .order_by("-id")
            .values_list("id", "role", "content", "content_tokens")[:batch]
        )
        for message_id, role, content, tokens in rows:
            cost = (tokens if tokens is not None else count_tokens(content)) + MESSAGE_OVERHEAD_TOKENS
            if used + cost > budget:
                rows = []  # full: stop reading
                break
            picked.append({"role": role, "content": content})
            used += cost
            last_id = message_id
        if len(rows) < batch:
            break
    picked.reverse()
    # Providers expect the turns after the system messages to open with the user.
    while picked and picked[0]["role"] != Message.Role.USER:
        picked.pop(0)
    return picked


def chat_request_build(*, conversation: Conversation, user_message: Message, model: str,
                       memory: MemoryRead | None = None) -> ChatRequest:
    """Every message a chat model is sent for `user_message` (see the module docstring).

    `memory` is a read the caller already started; without one, it starts here.
    """
    if memory is None:
        memory = MemoryRead.start(owner=Owner.of(conversation))

    system = [{"role": "system", "content": BASE_SYSTEM_PROMPT}]
    project = conversation.project
    if project is not None and project.instructions.strip():
        system.append({
            "role": "system",
            "content": PROJECT_SYSTEM_MESSAGE.format(name=project.name, instructions=project.instructions),
        })
    new = {"role": "user", "content": user_message.content}
    fixed = sum(_message_tokens(m["content"]) for m in system) + _message_tokens(new["content"])
    budget = model_context_tokens(model) - REPLY_RESERVE_TOKENS - _memory_reserve_tokens() - fixed
    history = _history_within(conversation=conversation, before_id=user_message.pk, budget=budget)

    snapshot = memory.snapshot()
    block = memory_system_message(snapshot.lines) if snapshot is not None else None
    messages = system + ([block] if block else []) + history + [new]
    return ChatRequest(model=model, messages=messages, memory_attached=block is not None,
                       history_messages=len(history))


# ---------------------------------------------------------------- exchanges


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
    committed = {"done": False}
    try:
        with transaction.atomic():
            # Registered first, so it runs before the pass is published: if publishing
            # fails after the commit, the reply is saved and the pass row stays queued.
            transaction.on_commit(lambda: committed.update(done=True))
            assistant = Message.objects.create(
                conversation=conversation, role=Message.Role.ASSISTANT, content=text,
                model=exchange.model, input_tokens=input_tokens, output_tokens=output_tokens,
                content_tokens=count_tokens(text),
            )
            Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
            try:
                # Operator switch (WHIZI_MEMORY_ENABLED): with memory off, no pass is queued.
                if settings.WHIZI_MEMORY_ENABLED:
                    with transaction.atomic():
                        queue_pass_after_reply(
                            conversation=conversation, user_message=exchange.user_message,
                            assistant_message=assistant,
                        )
            except DatabaseError:
                # The reply matters more than one pass; the next trigger rewrites the whole list.
                log.exception("could not queue a memory pass for conversation %s", conversation.pk)
    except Exception:
        if not committed["done"]:
            raise
        log.exception("memory pass for conversation %s saved but not published", conversation.pk)
    turns = conversation.messages.filter(id__lte=assistant.pk).count()
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


# ---------------------------------------------------------------- the memory mark


def exchange_memory_states(*, assistant_message_ids: Sequence[int]) -> dict[int, str]:
    """For each reply: "pending" while its pass is queued or running, "updated" when the
    pass changed the list; replies with no pass, or whose pass changed nothing, are left out."""
    changed = {MemoryPass.Outcome.UPDATED, MemoryPass.Outcome.COMPACTED, MemoryPass.Outcome.TRIMMED}
    states: dict[int, str] = {}
    rows = MemoryPass.objects.filter(through_message_id__in=list(assistant_message_ids)).values_list(
        "through_message_id", "status", "outcome"
    )
    for message_id, status, outcome in rows:
        if status != MemoryPass.Status.DONE:
            states[message_id] = "pending"
        elif outcome in changed:
            states[message_id] = "updated"
    return states


# ---------------------------------------------------------------- voice


def voice_instructions(*, memory: MemoryRead) -> str:
    """The voice model's prompt: the voice rules plus the saved list, when it could be read."""
    snapshot = memory.snapshot()
    block = memory_system_message(snapshot.lines) if snapshot is not None else None
    if block is None:
        return VOICE_SYSTEM_PROMPT
    return VOICE_SYSTEM_PROMPT + "\n\n" + block["content"]


def voice_session_start(*, owner: Owner) -> tuple[VoiceSession, str]:
    """A new voice session and its prompt, which carries the saved list when it can be read."""
    memory = MemoryRead.start(owner=owner)  # read while the session row is written
    session = VoiceSession.objects.create(**owner.lookup)
    return session, voice_instructions(memory=memory)


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
        # Locked so two turns arriving at once cannot both pass the cap or land after the end.
        locked = VoiceSession.objects.select_for_update().get(pk=session.pk)
        if locked.ended_at is not None:
            raise ChatNotAllowed(_("This voice session has ended."))
        if locked.turns.count() >= VOICE_MAX_TURNS:
            full = _("This voice session is full (%(count)d turns). Start a new one.")
            raise ChatNotAllowed(full % {"count": VOICE_MAX_TURNS})
        return VoiceTurn.objects.create(session=locked, role=role, text=text)


def voice_session_end(*, session: VoiceSession) -> MemoryPass | None:
    """End the session and queue its one memory pass; ending again queues nothing."""
    with transaction.atomic():
        # Locked so two end requests at once queue one pass between them.
        locked = VoiceSession.objects.select_for_update().get(pk=session.pk)
        if locked.ended_at is None:
            locked.ended_at = timezone.now()
            locked.save(update_fields=["ended_at"])
        if not settings.WHIZI_MEMORY_ENABLED:  # operator switch: no pass with memory off
            return None
        return queue_voice_pass(session=locked)
