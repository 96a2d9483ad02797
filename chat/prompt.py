"""What a chat model is sent (docs/DESIGN.md §2.1), in this order:

  1. the base system prompt (with how memory works, when no saved list is shown);
  2. the project's instructions, as their own system message (that project's chats only);
  3. the saved memory list, as its own system message framed as data about the user and
     saying how memory works;
  4. as much of the conversation's history as fits the model's context budget;
  5. the new user message.

1-3 all come from chat_system_messages(). The memory read (3) was started by the caller
and runs while 2, 4 and 5 are built; the system messages are put together last
(ChatRequest.with_memory), when the read is in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from accounts.owner import Owner
from chat.model_choice import history_budget
from chat.models import Conversation, Message, Project
from memory.selectors import memory_block_max_tokens
from memory.services import (
    MemoryRead,
    MemorySnapshot,
    count_tokens,
    memory_absent_rules,
    memory_system_message,
)
from whizi.db import sql_rows, sql_table

BASE_SYSTEM_PROMPT = (
    "You are Whizi, a helpful, friendly assistant. Answer clearly and concisely, in the "
    "language the user writes in."
)
PROJECT_SYSTEM_MESSAGE = (
    'Instructions for this project ("{name}"), set by the user. Follow them in this '
    "conversation:\n{instructions}"
)
# Per-message framing a provider adds around each message's content.
MESSAGE_OVERHEAD_TOKENS = 4


def _message_tokens(content: str) -> int:
    return count_tokens(content) + MESSAGE_OVERHEAD_TOKENS


def chat_system_messages(*, project: Project | None,
                         memory_lines: Sequence[str] | None) -> list[dict[str, str]]:
    """Every system message a chat request carries, in order: the base prompt, the
    project's instructions, the saved list. `memory_lines` None (not read) or empty:
    the base prompt itself says how memory works, so the rules are always there."""
    block = memory_system_message(memory_lines) if memory_lines else None
    base = BASE_SYSTEM_PROMPT if block is not None else f"{BASE_SYSTEM_PROMPT}\n\n{memory_absent_rules()}"
    system = [{"role": "system", "content": base}]
    if project is not None and project.instructions.strip():
        system.append({
            "role": "system",
            "content": PROJECT_SYSTEM_MESSAGE.format(name=project.name, instructions=project.instructions),
        })
    if block is not None:
        system.append(block)
    return system


@dataclass(frozen=True)
class ChatRequest:
    model: str
    project: Project | None
    history: tuple[dict[str, str], ...]
    new: dict[str, str]
    memory_lines: tuple[str, ...] | None = None

    @property
    def system(self) -> list[dict[str, str]]:
        return chat_system_messages(project=self.project, memory_lines=self.memory_lines)

    @property
    def messages(self) -> list[dict[str, str]]:
        return [*self.system, *self.history, self.new]

    def with_memory(self, snapshot: MemorySnapshot | None) -> ChatRequest:
        """This request with the saved list, when the read brought one."""
        return replace(self, memory_lines=snapshot.lines if snapshot is not None else None)


def history_within(earlier: Iterable[tuple[str, str, int | None]], *, budget: int) -> list[dict[str, str]]:
    """From (role, content, tokens) rows, newest first, the newest that fit in `budget`
    tokens, oldest first. Stops reading at the first row that does not fit."""
    picked: list[dict[str, str]] = []
    used = 0
    for role, content, tokens in earlier:
        cost = (tokens if tokens is not None else count_tokens(content)) + MESSAGE_OVERHEAD_TOKENS
        if used + cost > budget:
            break
        picked.append({"role": role, "content": content})
        used += cost
    picked.reverse()
    # Providers expect the turns after the system messages to open with the user.
    while picked and picked[0]["role"] != Message.Role.USER:
        picked.pop(0)
    return picked


HISTORY_BATCH = 100
HistoryRow = tuple[int, str, str, int | None]  # id, role, content, content_tokens


def history_rows(*, conversation: Conversation, before_id: int | None = None) -> list[HistoryRow]:
    """Up to HISTORY_BATCH of the conversation's messages (before `before_id`), newest first."""
    # `conversation.messages.order_by("-id").values_list(…)[:HISTORY_BATCH]`, written as
    # SQL: every message reads it, and the ORM's build cost more than the read.
    older, params = "", [conversation.pk]
    if before_id is not None:
        older, params = " AND id < %s", [conversation.pk, before_id]
    return sql_rows(f"SELECT id, role, content, content_tokens FROM {sql_table(Message)} "
                    f"WHERE conversation_id = %s{older} ORDER BY id DESC LIMIT {HISTORY_BATCH}", params)


def _messages_newest_first(*, conversation: Conversation, before_id: int,
                           newest: list[HistoryRow] | None = None) -> Iterator[tuple[str, str, int | None]]:
    """The conversation's messages before `before_id`, newest first, read in batches so a
    long conversation costs no more than the part that is used. `newest`: the first
    batch, when the caller read it already (history_rows())."""
    rows = newest if newest is not None else history_rows(conversation=conversation, before_id=before_id)
    while True:
        for message_id, role, content, tokens in rows:
            if message_id < before_id:
                yield role, content, tokens
        if len(rows) < HISTORY_BATCH:
            return
        rows = history_rows(conversation=conversation, before_id=rows[-1][0])


def _system_room(project: Project | None) -> int:
    """The most the system messages can take, whatever the memory read brings: the base
    prompt with the memory rules (no list), or without them beside the largest block the
    list can make. Known before the read, so the history budget never waits for it."""
    unlisted, listed = (_system_tokens(None, None) if project is None
                        else _system_tokens(project.name, project.instructions))
    return max(unlisted, listed + memory_block_max_tokens() + MESSAGE_OVERHEAD_TOKENS)


@lru_cache(maxsize=256)
def _system_tokens(name: str | None, instructions: str | None) -> tuple[int, int]:
    """The system messages' tokens with the memory rules and no list, and without the
    list's block. Counted once per project's words (they are the same for every message
    of its chats), not again for each message."""
    project = None if name is None else Project(name=name, instructions=instructions)
    unlisted = chat_system_messages(project=project, memory_lines=None)
    listed = chat_system_messages(project=project, memory_lines=["-"])[:-1]  # all but the block
    return (sum(_message_tokens(m["content"]) for m in unlisted),
            sum(_message_tokens(m["content"]) for m in listed))


def chat_request_compose(*, model: str, project: Project | None, new_content: str,
                         earlier: Iterable[tuple[str, str, int | None]],
                         new_tokens: int | None = None) -> ChatRequest:
    """The request for `new_content` (`new_tokens` long, when known) after `earlier`
    (newest first) but the memory list, whose room is kept in the history budget."""
    new = {"role": "user", "content": new_content}
    new_cost = _message_tokens(new_content) if new_tokens is None else new_tokens + MESSAGE_OVERHEAD_TOKENS
    fixed = _system_room(project) + new_cost
    history = history_within(earlier, budget=history_budget(model, fixed_tokens=fixed))
    return ChatRequest(model=model, project=project, history=tuple(history), new=new)


def chat_request_assemble(*, conversation: Conversation, user_message: Message, model: str,
                          newest: list[HistoryRow] | None = None) -> ChatRequest:
    """Everything a chat model is sent for `user_message` but the memory list (whose room
    is kept in the budget). `newest`: the conversation's newest messages (history_rows()),
    when the caller has read them."""
    return chat_request_compose(
        model=model, project=conversation.project, new_content=user_message.content,
        new_tokens=user_message.content_tokens,
        earlier=_messages_newest_first(conversation=conversation, before_id=user_message.pk, newest=newest),
    )


def chat_request_build(*, conversation: Conversation, user_message: Message, model: str,
                       memory: MemoryRead | None = None) -> ChatRequest:
    """The whole request, waiting in this thread for the memory read (started here if the
    caller did not start it)."""
    if memory is None:
        memory = MemoryRead.start(owner=Owner.of(conversation))
    request = chat_request_assemble(conversation=conversation, user_message=user_message, model=model)
    return request.with_memory(memory.snapshot())
