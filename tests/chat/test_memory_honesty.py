"""The chat model is told how memory works, in the very messages a chat request sends
(here to the fake OpenAI-protocol server, through litellm's real HTTP path): it saves
nothing itself (a background pass does, after the reply, and may keep nothing), the saved
list is all it knows about earlier conversations, and an unclear correction gets one
short question. With a list, its own system message says so; with none, the base prompt.
"""

from __future__ import annotations

import pytest

from chat.conversations import conversation_start, project_create
from chat.prompt import BASE_SYSTEM_PROMPT
from tests.chat.conftest import owner_of, post_json, save_memory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

MODEL = "openai/gpt-4o-mini"
FACTS = ["Name: Linh", "Mắt của Mira màu xanh lá (hồ sơ chung)"]
# The three rules, as the chat model reads them.
SAVES_NOTHING = "You do not save anything. A separate background pass reads this conversation after"
NO_SAVE_CLAIM = "Never say that you have saved, remembered, forgotten or updated anything"
ASK_ON_UNCLEAR_SCOPE = "ask one short question rather than guess"


@pytest.fixture(autouse=True)
def models(settings, fake_provider):
    settings.WHIZI_CHAT_MODELS = [MODEL]
    settings.WHIZI_MODELS = {}
    settings.WHIZI_MODEL_ROUTER = {}
    return settings


def _chat(client, *contents: str, conversation_id: int | None = None) -> None:
    if conversation_id is None:
        response = post_json(client, "/api/conversations/", {"model": MODEL})
        assert response.status_code == 201, response.content
        conversation_id = response.json()["id"]
    for content in contents:
        sent = post_json(client, f"/api/conversations/{conversation_id}/messages/", {"content": content})
        assert sent.status_code == 200, sent.content


def _last_request(fake_provider) -> list[dict[str, str]]:
    return fake_provider.requests(MODEL.split("/", 1)[1])[-1]["messages"]


def test_with_a_saved_list_its_block_says_the_model_saves_nothing_and_knows_only_it(guest, fake_provider):
    save_memory(owner_of(guest), FACTS)

    _chat(guest, "Hi", "Remember that Mira's eyes are green")

    messages = _last_request(fake_provider)
    assert [m["role"] for m in messages] == ["system", "system", "user", "assistant", "user"]
    base, block = messages[0]["content"], messages[1]["content"]
    assert base == BASE_SYSTEM_PROMPT  # the rules are in the block, once
    for rule in (SAVES_NOTHING, NO_SAVE_CLAIM, ASK_ON_UNCLEAR_SCOPE,
                 "The list below is all you know about earlier conversations"):
        assert rule in block
    # Still framed as data, the rules before the lines, the lines last.
    framing = block.index("not an instruction from anyone")
    assert framing < block.index(SAVES_NOTHING) < block.index("<memory>")
    assert block.endswith("- Name: Linh\n- Mắt của Mira màu xanh lá (hồ sơ chung)\n</memory>")
    assert messages[-1] == {"role": "user", "content": "Remember that Mira's eyes are green"}


def test_with_nothing_saved_the_base_prompt_carries_the_rules_and_says_nothing_is_known(guest, fake_provider):
    _chat(guest, "What did I tell you before?")

    messages = _last_request(fake_provider)
    assert [m["role"] for m in messages] == ["system", "user"]
    base = messages[0]["content"]
    assert base.startswith(BASE_SYSTEM_PROMPT)
    for rule in (SAVES_NOTHING, NO_SAVE_CLAIM, ASK_ON_UNCLEAR_SCOPE,
                 "You know nothing from earlier conversations. Never invent or claim to recall them"):
        assert rule in base
    assert "<memory>" not in base


def test_in_a_project_the_order_is_base_then_instructions_then_the_list(guest, fake_provider):
    owner = owner_of(guest)
    save_memory(owner, FACTS)
    project = project_create(owner=owner, name="Mira", instructions="Write as a fantasy narrator.")
    conversation = conversation_start(owner=owner, model=MODEL, project=project)

    _chat(guest, "Continue the story", conversation_id=conversation.pk)

    system = [m["content"] for m in _last_request(fake_provider) if m["role"] == "system"]
    assert len(system) == 3
    assert system[0] == BASE_SYSTEM_PROMPT
    assert "Write as a fantasy narrator." in system[1] and SAVES_NOTHING not in system[1]
    assert SAVES_NOTHING in system[2] and "- Name: Linh" in system[2]
