"""A memory pass records what its model calls cost, apart from the user's chat: memory is
Whizi's cost and never uses a message or a credit of the user's. The memory model is
reached like any deployment's, through litellm's real HTTP path to the fake provider."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chat.models import Message
from memory.models import MemoryPass
from memory.run import pass_run
from tests.memory.conftest import chat, queue_pass, saved_lines

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def memory_model(settings, fake_provider):
    settings.WHIZI_MEMORY_MODEL = "openai/gpt-4o-mini"  # priced by litellm, answered by the fake provider
    return fake_provider


def test_a_pass_records_its_model_cost_and_the_chat_pays_nothing(user, memory_model):
    memory_model.reply("gpt-4o-mini", "- Name is Sam", usage={"prompt_tokens": 3000, "completion_tokens": 20})
    reply = chat(user, "I'm Sam, remember that.", "Nice to meet you, Sam!")
    memory_pass = queue_pass(user, through=reply)

    pass_run(pass_id=memory_pass.pk)

    memory_pass.refresh_from_db()
    assert saved_lines(user) == ["Name is Sam"]
    assert (memory_pass.model, memory_pass.cost) == ("openai/gpt-4o-mini", Decimal("0.00046200"))
    assert set(Message.objects.values_list("cost", flat=True)) == {None}  # nothing added to the chat's


def test_a_pass_on_a_model_nobody_can_price_has_no_cost(user, memory_model, settings):
    settings.WHIZI_MEMORY_MODEL = "openai/house-memory"
    memory_model.reply("house-memory", "- Name is Sam")
    memory_pass = queue_pass(user, through=chat(user, "I'm Sam, remember that.", "Hi Sam!"))

    pass_run(pass_id=memory_pass.pk)

    memory_pass.refresh_from_db()
    assert memory_pass.outcome == MemoryPass.Outcome.UPDATED and memory_pass.cost is None
