"""What a chat model is sent (docs/DESIGN.md §2.1), in this order:

  1. the base system prompt;
  2. the project's instructions, as their own system message (that project's chats only);
  3. the saved memory list, as its own system message framed as data about the user;
  4. as much of the conversation's history as fits the model's context budget;
  5. the new user message.

The memory read (3) was started by the caller and runs while 1, 2, 4 and 5 are built;
its block is put in place last (ChatRequest.with_memory), when the read is in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accounts.owner import Owner
from chat.model_choice import history_budget
from chat.models import Conversation, Message
from memory.prompts import memory_system_message
from memory.reading import MemoryRead
from memory.selectors import memory_block_max_tokens
from memory.store import MemorySnapshot
from memory.tokens import count_tokens

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


@dataclass(frozen=True)
class ChatRequest:
    model: str
    system: tuple[dict[str, str], ...]
    history: tuple[dict[str, str], ...]
    new: dict[str, str]
    memory_block: dict[str, str] | None = None

    @property
    def messages(self) -> list[dict[str, str]]:
        block = [self.memory_block] if self.memory_block else []
        return [*self.system, *block, *self.history, self.new]

    @property
    def memory_attached(self) -> bool:
        return self.memory_block is not None

    @property
    def history_messages(self) -> int:
        return len(self.history)

    def with_memory(self, snapshot: MemorySnapshot | None) -> ChatRequest:
        """This request with the saved list's block, when the read brought one."""
        block = memory_system_message(snapshot.lines) if snapshot is not None else None
        return replace(self, memory_block=block)


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


def chat_request_assemble(*, conversation: Conversation, user_message: Message, model: str) -> ChatRequest:
    """Everything a chat model is sent for `user_message` but the memory block (whose room
    is kept in the budget)."""
    system = [{"role": "system", "content": BASE_SYSTEM_PROMPT}]
    project = conversation.project
    if project is not None and project.instructions.strip():
        system.append({
            "role": "system",
            "content": PROJECT_SYSTEM_MESSAGE.format(name=project.name, instructions=project.instructions),
        })
    new = {"role": "user", "content": user_message.content}
    fixed = sum(_message_tokens(m["content"]) for m in system) + _message_tokens(new["content"])
    fixed += memory_block_max_tokens() + MESSAGE_OVERHEAD_TOKENS
    history = _history_within(conversation=conversation, before_id=user_message.pk,
                              budget=history_budget(model, fixed_tokens=fixed))
    return ChatRequest(model=model, system=tuple(system), history=tuple(history), new=new)


def chat_request_build(*, conversation: Conversation, user_message: Message, model: str,
                       memory: MemoryRead | None = None) -> ChatRequest:
    """The whole request, waiting in this thread for the memory read (started here if the
    caller did not start it)."""
    if memory is None:
        memory = MemoryRead.start(owner=Owner.of(conversation))
    request = chat_request_assemble(conversation=conversation, user_message=user_message, model=model)
    return request.with_memory(memory.snapshot())
