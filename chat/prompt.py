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


def _messages_newest_first(*, conversation: Conversation,
                           before_id: int) -> Iterator[tuple[str, str, int | None]]:
    """The conversation's messages before `before_id`, newest first, read in batches so a
    long conversation costs no more than the part that is used."""
    batch = 100
    last_id = before_id
    while True:
        rows = list(
            conversation.messages.filter(id__lt=last_id)
            .order_by("-id")
            .values_list("id", "role", "content", "content_tokens")[:batch]
        )
        for message_id, role, content, tokens in rows:
            last_id = message_id
            yield role, content, tokens
        if len(rows) < batch:
            return


def _system_room(project: Project | None) -> int:
    """The most the system messages can take, whatever the memory read brings: the base
    prompt with the memory rules (no list), or without them beside the largest block the
    list can make. Known before the read, so the history budget never waits for it."""
    unlisted = chat_system_messages(project=project, memory_lines=None)
    listed = chat_system_messages(project=project, memory_lines=["-"])[:-1]  # all but the block
    return max(sum(_message_tokens(m["content"]) for m in unlisted),
               sum(_message_tokens(m["content"]) for m in listed) + memory_block_max_tokens()
               + MESSAGE_OVERHEAD_TOKENS)


def chat_request_compose(*, model: str, project: Project | None, new_content: str,
                         earlier: Iterable[tuple[str, str, int | None]]) -> ChatRequest:
    """The request for `new_content` after `earlier` (newest first) but the memory list,
    whose room is kept in the history budget."""
    new = {"role": "user", "content": new_content}
    fixed = _system_room(project) + _message_tokens(new["content"])
    history = history_within(earlier, budget=history_budget(model, fixed_tokens=fixed))
    return ChatRequest(model=model, project=project, history=tuple(history), new=new)


def chat_request_assemble(*, conversation: Conversation, user_message: Message, model: str) -> ChatRequest:
    """Everything a chat model is sent for `user_message` but the memory list (whose room
    is kept in the budget)."""
    return chat_request_compose(
        model=model, project=conversation.project, new_content=user_message.content,
        earlier=_messages_newest_first(conversation=conversation, before_id=user_message.pk),
    )


def chat_request_build(*, conversation: Conversation, user_message: Message, model: str,
                       memory: MemoryRead | None = None) -> ChatRequest:
    """The whole request, waiting in this thread for the memory read (started here if the
    caller did not start it)."""
    if memory is None:
        memory = MemoryRead.start(owner=Owner.of(conversation))
    request = chat_request_assemble(conversation=conversation, user_message=user_message, model=model)
    return request.with_memory(memory.snapshot())
