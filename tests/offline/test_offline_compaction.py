"""The offline compaction pass (docs/DESIGN.md §2.5): merge lines about the same thing, drop the
least useful by content, keep who the user is, and land at or under the target."""

import random

from memory.tokens import count_list_tokens
from tests.offline.passes import compaction_pass

IDENTITY = [
    "Name: Anna Nguyen",
    "Sister's name is Lea",
    "Works as a nurse at St Mary's",
    "Lives in Hanoi",
    "Standing preference: always wants answers in bullet points",
    "Tên là Mai",
    "名字是王小明",
]
TASTES = [f"Likes the {n}th album of the band she saw in {1990 + n}, especially the slow song"
          f"s" for n in range(70)]
EXTRAS = [f"Enjoys long walks along river number {n} on sunny weekend mornings" for n in range(40)]


def over_budget_list() -> list[str]:
    lines = TASTES[:35] + IDENTITY[:3] + EXTRAS + IDENTITY[3:] + TASTES[35:]
    assert count_list_tokens(lines) > 2000
    return lines


def words(lines: list[str]) -> set[str]:
    return {w.strip(",;") for line in lines for w in line.split()}


def test_it_lands_at_or_under_the_target():
    lines = over_budget_list()
    compacted = compaction_pass(lines, tokens=count_list_tokens(lines))
    assert compacted
    assert count_list_tokens(compacted) <= 1500


def test_it_keeps_the_lines_about_who_the_user_is():
    lines = over_budget_list()
    compacted = compaction_pass(lines, tokens=count_list_tokens(lines))
    for line in IDENTITY:
        assert line in compacted


def test_usefulness_is_judged_on_content_never_on_position():
    lines = over_budget_list()
    shuffled = list(lines)
    random.Random(4).shuffle(shuffled)
    first = compaction_pass(lines, tokens=count_list_tokens(lines))
    second = compaction_pass(shuffled, tokens=count_list_tokens(shuffled))
    assert set(first) == set(second)


def test_it_adds_nothing_new():
    lines = over_budget_list()
    assert words(compaction_pass(lines, tokens=count_list_tokens(lines))) <= words(lines)


def test_it_merges_likes_worded_alike_and_lines_about_one_relative():
    lines = ["Likes cats", "Name: Anna", "Likes jazz", "Sister's name is Lea", "Sister lives in Paris",
             "Thích cà phê", "Thích trà"]
    assert compaction_pass(lines, tokens=2100) == [
        "Likes cats, jazz", "Name: Anna", "Sister lives in Paris; Sister's name is Lea", "Thích cà phê, trà"]


def test_a_repeated_line_is_kept_once():
    lines = ["Name: Anna", "Lives in Hanoi", "name:  anna"]
    assert compaction_pass(lines, tokens=2100) == ["Name: Anna", "Lives in Hanoi"]
