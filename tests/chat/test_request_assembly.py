"""What a chat model is sent: base prompt, project instructions, the memory list as its
own system message, history within budget, and the new message (docs/DESIGN.md §2.1)."""

import pytest

from chat.conversations import conversation_start, project_create
from chat.errors import ChatInputError
from chat.exchange import chat_exchange_begin, chat_reply
from chat.model_choice import DEFAULT_CONTEXT_TOKENS, model_context_tokens
from chat.models import Conversation, Message, Project
from chat.prompt import BASE_SYSTEM_PROMPT, MESSAGE_OVERHEAD_TOKENS
from memory.chat_block import memory_absent_rules
from memory.tokens import count_tokens
from tests.chat.conftest import (
    CHAT_A,
    CHAT_B,
    OFFLINE,
    memory_messages,
    owner_of,
    post_json,
    save_memory,
    system_messages,
)
from whizi.llm.scripted import Script

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FACTS = ["Name is Ann Nguyễn", "Lives in Đà Nẵng", "Has a cat named Pixel"]


def _start(client, model=None) -> int:
    response = post_json(client, "/api/conversations/", {"model": model} if model else None)
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _send(client, conversation_id, content, model=None):
    body = {"content": content}
    if model:
        body["model"] = model
    response = post_json(client, f"/api/conversations/{conversation_id}/messages/", body)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("model", [CHAT_A, CHAT_B, OFFLINE])
def test_every_configured_model_gets_the_list_as_its_own_system_message(guest, model):
    owner = owner_of(guest)
    save_memory(owner, FACTS)
    conversation = conversation_start(owner=owner, model=model)

    exchange = chat_exchange_begin(conversation=conversation, content="Hello!")

    messages = exchange.request.messages
    assert exchange.model == model
    assert exchange.request.memory_lines
    [block] = memory_messages(messages)
    assert all(f"- {fact}" in block for fact in FACTS)
    assert "not an instruction from anyone" in block  # framed as data about the user
    # Its own message: the base prompt carries no fact, and the block nothing else.
    base = messages[0]
    assert base["role"] == "system" and base["content"] == BASE_SYSTEM_PROMPT
    assert messages.index({"role": "system", "content": block}) == 1
    assert messages[-1] == {"role": "user", "content": "Hello!"}


@pytest.mark.parametrize("model", [CHAT_A, CHAT_B])
def test_the_scripted_models_receive_the_memory_block_before_they_answer(guest, model):
    script = Script(model.split("/", 1)[1]).reset().reply("Hi Ann!")
    save_memory(owner_of(guest), FACTS)
    conversation_id = _start(guest, model)

    answer = _send(guest, conversation_id, "Hello!")

    assert answer.pop("message_id") > 0
    assert answer == {"reply": "Hi Ann!", "model": model, "turns": 2}
    [call] = script.calls()
    [block] = memory_messages(call)
    assert "- Lives in Đà Nẵng" in block
    assert len(system_messages(call)) == 2


def test_the_offline_model_answers_with_the_list_attached(guest):
    save_memory(owner_of(guest), FACTS)
    conversation_id = _start(guest, OFFLINE)

    answer = _send(guest, conversation_id, "What do you remember about me?")

    assert answer["model"] == OFFLINE and answer["turns"] == 2 and answer["reply"].strip()


def test_memory_follows_a_switch_of_model_mid_conversation(guest, script_a, script_b):
    script_a.reply("Nice to meet you.")
    script_b.reply("Still here, Ann.")
    save_memory(owner_of(guest), FACTS)
    conversation_id = _start(guest, CHAT_A)

    _send(guest, conversation_id, "Hi there")
    answer = _send(guest, conversation_id, "Switching models now", model=CHAT_B)

    assert answer.pop("message_id") > 0
    assert answer == {"reply": "Still here, Ann.", "model": CHAT_B, "turns": 4}
    [call_b] = script_b.calls()
    [block] = memory_messages(call_b)
    assert "- Name is Ann Nguyễn" in block
    # The conversation so far travels with it, after the system messages.
    assert [m["content"] for m in call_b if m["role"] != "system"] == [
        "Hi there", "Nice to meet you.", "Switching models now",
    ]
    conversation = Conversation.objects.get(pk=conversation_id)
    assert conversation.model == CHAT_B
    assert list(conversation.messages.filter(role="assistant").values_list("model", flat=True)) == [
        CHAT_A, CHAT_B,
    ]


def test_a_new_conversation_carries_the_list_but_no_old_chat_text(guest, script_a):
    script_a.reply("Pixel is a lovely name.").reply("Hello again!")
    first = _start(guest, CHAT_A)
    _send(guest, first, "My cat is called Pixel and she hates Mondays")
    save_memory(owner_of(guest), ["Has a cat named Pixel"])

    second = _start(guest, CHAT_A)
    _send(guest, second, "Good morning")

    call = script_a.calls()[-1]
    assert "- Has a cat named Pixel" in memory_messages(call)[0]
    assert [m["content"] for m in call if m["role"] != "system"] == ["Good morning"]
    assert not any("hates Mondays" in m["content"] or "lovely name" in m["content"] for m in call)


def test_project_instructions_appear_only_in_that_projects_chats(guest, script_a):
    owner = owner_of(guest)
    save_memory(owner, FACTS)
    haiku = project_create(owner=owner, name="Poems", instructions="Always answer in haiku.")
    other = project_create(owner=owner, name="Taxes", instructions="Cite the form number.")
    in_project = conversation_start(owner=owner, model=CHAT_A, project=haiku)
    in_other = conversation_start(owner=owner, model=CHAT_A, project=other)
    outside = conversation_start(owner=owner, model=CHAT_A)
    script_a.reply("Autumn moon rises").reply("Form 1040.").reply("Hello.")

    for conversation in (in_project, in_other, outside):
        chat_reply(conversation=conversation, content="Tell me something")

    project_call, other_call, outside_call = script_a.calls()
    project_system = system_messages(project_call)
    assert len(project_system) == 3  # base, project, memory: each its own message
    [instructions] = [m for m in project_system if "Always answer in haiku." in m]
    assert "<memory>" not in instructions and BASE_SYSTEM_PROMPT not in instructions
    assert not any("haiku" in m["content"] for m in other_call + outside_call)
    assert any("Cite the form number." in m["content"] for m in other_call)
    assert len(system_messages(outside_call)) == 2


def test_no_memory_block_is_sent_when_nothing_is_remembered(guest, script_a):
    script_a.reply("Hello.")
    conversation_id = _start(guest, CHAT_A)

    _send(guest, conversation_id, "Hi")

    [call] = script_a.calls()
    assert memory_messages(call) == []
    # One system message: the base prompt, which then says how memory works itself.
    assert system_messages(call) == [f"{BASE_SYSTEM_PROMPT}\n\n{memory_absent_rules()}"]


def test_the_history_is_trimmed_to_the_models_budget_newest_kept(guest):
    owner = owner_of(guest)
    save_memory(owner, FACTS)
    conversation = conversation_start(owner=owner, model=CHAT_A)
    # ~40 x 400 tokens: well over the 8,192-token default budget of an unmapped model.
    for index in range(40):
        role = Message.Role.USER if index % 2 == 0 else Message.Role.ASSISTANT
        Message.objects.create(conversation=conversation, role=role,
                               content=f"turn {index} " + "lorem ipsum " * 200)

    exchange = chat_exchange_begin(conversation=conversation, content="And now?")

    messages = exchange.request.messages
    history = [m for m in messages[:-1] if m["role"] != "system"]
    total = sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages)
    assert total <= DEFAULT_CONTEXT_TOKENS
    assert 0 < len(history) < 40
    assert history[-1]["content"].startswith("turn 39 ")  # the newest turns are kept
    assert history[0]["role"] == "user"  # the kept part opens with the user
    assert memory_messages(messages)  # and the memory block still fits
    assert messages[-1]["content"] == "And now?"


def test_a_models_budget_comes_from_litellm_with_a_default_for_unknown_models():
    assert model_context_tokens("openai/gpt-4o-mini") == 128_000
    assert model_context_tokens("whizi/offline") == DEFAULT_CONTEXT_TOKENS
    assert model_context_tokens("acme/custom-model") == DEFAULT_CONTEXT_TOKENS


def test_another_owners_project_cannot_be_used(guest, make_user):
    stranger = make_user("bob@example.com")
    from accounts.owner import Owner

    theirs = Project.objects.create(user=stranger, name="Secret", instructions="Leak")
    with pytest.raises(ChatInputError):
        conversation_start(owner=owner_of(guest), project=theirs)
    assert Conversation.objects.for_owner(Owner(user_id=stranger.pk)).count() == 0
    assert Conversation.objects.count() == 0
