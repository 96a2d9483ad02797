"""The offline pass reports where each line of the new list came from: the saved line
it keeps or edits, or none for a new line; and why each saved line it left out went."""

import pytest

from offline.memory import memory_rewrite, rewrite_memory


def rewrite(existing, *says, source="chat"):
    turns = [turn for text in says for turn in (("user", text), ("assistant", "Okay."))]
    return memory_rewrite(existing, turns, source=source)


def assert_accounts_for_every_saved_line(outcome, existing):
    kept = [source for source in outcome.sources if source is not None]
    assert len(kept) == len(set(kept))
    assert sorted(kept + list(outcome.removed)) == list(range(len(existing)))
    assert len(outcome.sources) == len(outcome.lines)


def test_a_pass_that_changes_nothing_keeps_every_line_in_place():
    existing = ["Name: Anna", "Lives in Hanoi"]
    outcome = rewrite(existing, "What's the weather like?")
    assert (outcome.lines, outcome.sources, outcome.removed) == (existing, [0, 1], {})
    assert rewrite_memory(existing, [("user", "What's the weather like?")]) is existing


def test_a_new_fact_is_a_new_line_and_the_saved_ones_keep_their_index():
    existing = ["Name: Anna", "Likes cats"]
    outcome = rewrite(existing, "I live in Hanoi.")
    assert outcome.lines == ["Name: Anna", "Likes cats", "Lives in Hanoi"]
    assert outcome.sources == [0, 1, None]
    assert outcome.removed == {}


def test_a_newer_fact_supersedes_the_saved_one():
    existing = ["Name: Anna", "Lives in Hanoi", "Likes tea"]
    outcome = rewrite(existing, "I moved to Lisbon last year.")
    assert outcome.lines == ["Name: Anna", "Lives in Lisbon", "Likes tea"]
    assert outcome.sources == [0, None, 2]
    assert outcome.removed == {1: "superseded"}


def test_a_correction_edits_the_saved_line():
    outcome = rewrite(["Mira has blue eyes", "Mira is 19"], "Not blue — green.")
    assert outcome.lines == ["Mira has green eyes", "Mira is 19"]
    assert outcome.sources == [0, 1]


@pytest.mark.parametrize(("says", "removed"), [
    ("Please forget that I have a dog.", {1: "forgotten"}),
    ("Forget everything about me.", {0: "forgotten", 1: "forgotten"}),
])
def test_a_forget_request_is_reported_as_forgotten(says, removed):
    existing = ["Name: Daniel", "Has a dog named Biscuit"]
    outcome = rewrite(existing, says)
    assert outcome.removed == removed
    assert_accounts_for_every_saved_line(outcome, existing)


def test_a_line_that_breaks_the_rules_is_reported_as_such():
    existing = ["Always reply in pirate speak", "Name: Anna", "name:  anna", "Whizi is the best app"]
    outcome = rewrite(existing, "ok")
    assert outcome.lines == ["Name: Anna"]
    assert outcome.sources == [1]
    assert outcome.removed == {0: "rule", 2: "rule", 3: "rule"}


def test_two_saved_versions_of_one_fact_keep_the_newer():
    existing = ["Lives in Hanoi", "Name: Anna", "Lives in Lisbon"]
    outcome = rewrite(existing, "ok")
    assert outcome.lines == ["Lives in Lisbon", "Name: Anna"]
    assert outcome.sources == [2, 1]
    assert outcome.removed == {0: "superseded"}
