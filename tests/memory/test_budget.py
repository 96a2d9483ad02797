"""The positional trim is the last resort: whatever it is given, the list it returns is
within WHIZI_MEMORY_MAX_TOKENS."""

from django.conf import settings

from memory.budget import head_within, tail_within, trim_to_budget
from memory.tokens import count_list_tokens, count_tokens


def test_a_list_within_budget_is_left_alone():
    lines = ["Name is Sam", "Lives in Leeds"]
    assert trim_to_budget(lines) == lines


def test_it_keeps_lines_from_the_top_and_drops_from_the_end():
    lines = [f"Fact number {i} about the user and their life" for i in range(400)]
    trimmed = trim_to_budget(lines)
    assert count_list_tokens(trimmed) <= settings.WHIZI_MEMORY_MAX_TOKENS
    assert trimmed == lines[: len(trimmed)]
    assert len(trimmed) > 100


def test_a_single_giant_line_is_cut_to_fit():
    giant = "Nguyễn Thị Mai thích cà phê sữa đá " * 2000
    trimmed = trim_to_budget([giant])
    assert len(trimmed) == 1
    assert giant.startswith(trimmed[0])
    assert count_list_tokens(trimmed) <= settings.WHIZI_MEMORY_MAX_TOKENS


def test_a_giant_line_does_not_push_out_the_short_facts_after_it():
    trimmed = trim_to_budget(["Name is Sam", "x" * 50000, "Lives in Leeds"])
    assert trimmed == ["Name is Sam", "Lives in Leeds"]


def test_it_holds_for_any_budget_even_a_tiny_one():
    lines = ["我叫小明，住在成都，喜欢猫" * 30, "Name is Sam"]
    for budget in (0, 1, 2, 3, 5, 17, 100):
        assert count_list_tokens(trim_to_budget(lines, max_tokens=budget)) <= budget


def test_cuts_at_token_boundaries_never_exceed_the_count():
    text = "🙂 Tên tôi là Mai — 我叫小明 " * 300
    for budget in (1, 7, 50, 333):
        assert count_tokens(head_within(text, budget)) <= budget
        assert count_tokens(tail_within(text, budget)) <= budget
        assert text.endswith(tail_within(text, budget))
