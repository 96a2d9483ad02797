"""Properties of the guest-into-account merge and its trim, for any two lists
(example tests and the "every fact once, account first" property: test_merge.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memory.lines import line_key, normalise_line
from memory.merge import merge_memory_lines

lines = st.lists(st.text(alphabet=st.sampled_from(list("abAB -•*1.)\tđĐ名字 ")), max_size=14), max_size=12)
facts = st.lists(st.text(max_size=70), max_size=40)


@given(lines, lines)
def test_merging_the_same_guest_again_changes_nothing(account, guest):
    # A signup retried, or a guest merged twice, never duplicates a fact.
    once = merge_memory_lines(account, guest)
    assert merge_memory_lines(once, guest) == once


@given(lines)
def test_a_list_merged_with_itself_is_just_that_list_without_repeats(account):
    assert merge_memory_lines(account, account) == merge_memory_lines(account, [])


@given(lines, lines)
def test_account_lines_keep_their_wording_and_guest_lines_arrive_normalised(account, guest):
    merged = merge_memory_lines(account, guest)
    account_part = merge_memory_lines(account, [])
    assert all(line in account for line in account_part)
    assert all(line == normalise_line(line) for line in merged[len(account_part):])


@given(lines, lines)
def test_nothing_is_lost_and_nothing_invented(account, guest):
    merged = merge_memory_lines(account, guest)
    wanted = {line_key(line) for line in account + guest} - {""}
    assert {line_key(line) for line in merged} == wanted
