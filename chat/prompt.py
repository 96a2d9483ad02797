"""What a chat model is sent (docs/DESIGN.md §2.1), in this order:

  1. the base system prompt;
  2. the project's instructions, as their own system message (that project's chats only);
  3. the saved memory list, as its own system message framed as data about the user;
  4. as much of the conversation's history as fits the model's context budget;
  5. the new user message.

The memory read (3) was started by the caller and runs while 1, 2, 4 and 5 are built.
"""

from __future__ import annotations

from dataclasses import dataclass

from accounts.owner import Owner
from chat.model_choice import REPLY_RESERVE_TOKENS, model_context_tokens
from chat.models import Conversation, Message
from memory.prompts import memory_system_message
from memory.reading import MemoryRead
from memory.selectors import memory_block_max_tokens
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

VOICE_SYSTEM_PROMPT = (
    "You are Whizi, talking with the user by voice. Keep answers short and natural to "
    "say aloud, in the language the user speaks."
)


def _message_tokens(content: str) -> int:
    return count_tokens(content) + MESSAGE_OVERHEAD_TOKENS


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
    """Every message a chat model is sent for `user_message`, in the order above.

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
    memory_reserve = memory_block_max_tokens() + MESSAGE_OVERHEAD_TOKENS
    budget = model_context_tokens(model) - REPLY_RESERVE_TOKENS - memory_reserve - fixed
    history = _history_within(conversation=conversation, before_id=user_message.pk, budget=budget)

    snapshot = memory.snapshot()
    block = memory_system_message(snapshot.lines) if snapshot is not None else None
    messages = system + ([block] if block else []) + history + [new]
    return ChatRequest(model=model, messages=messages, memory_attached=block is not None,
                       history_messages=len(history))
