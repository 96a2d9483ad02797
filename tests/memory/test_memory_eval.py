"""`python manage.py memory_eval` runs scenario files through the real pass (minus the
queue) and prints one row per scenario and a score; it exits 0 whatever the score."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memory.evaluation import scenarios_load
from memory.management.commands.memory_eval import DEFAULT_SCENARIOS
from whizi.llm.scripted import Script

NAME_TURNS = [{"role": "user", "content": "Tên tôi là Nguyễn Thị Mai."},
              {"role": "assistant", "content": "Chào Mai!"},
              {"role": "user", "content": "Nhớ điều đó nhé."}]


@pytest.fixture
def script():
    return Script("eval").reset()


def write(folder: Path, name: str, scenarios) -> Path:
    (folder / name).write_text(json.dumps(scenarios, ensure_ascii=False), encoding="utf-8")
    return folder


def run_eval(folder: Path, model: str = "scripted/eval") -> str:
    out = StringIO()
    call_command("memory_eval", "--model", model, "--scenarios", str(folder), stdout=out)
    return out.getvalue()


def scenario(name, *, existing=(), expect=None, source="chat"):
    return {"name": name, "language": "vi", "source": source, "existing": list(existing),
            "turns": NAME_TURNS, "expect": expect or {}}


def test_it_prints_a_row_per_scenario_and_the_score(tmp_path, script):
    write(tmp_path, "a.json", [
        scenario("kept", existing=["Thích cà phê sữa đá"],
                 expect={"contains": ["Nguyễn Thị Mai", "cà phê sữa đá"], "absent": [], "unchanged": False}),
        scenario("not-kept", expect={"absent": ["Mai"]}),
    ])
    write(tmp_path, "b.json", [scenario("unchanged", existing=["Tên là Mai"], expect={"unchanged": True})])
    script.reply("- Thích cà phê sữa đá\n- Tên là Nguyễn Thị Mai")
    script.reply("- Tên là Nguyễn Thị Mai")
    script.reply("- Tên là Mai")

    output = run_eval(tmp_path)

    rows = [line for line in output.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert [row.split()[:2] for row in rows] == [
        ["PASS", "kept"], ["FAIL", "not-kept"], ["PASS", "unchanged"]]
    assert "kept 'Mai'" in rows[1]
    assert output.rstrip().endswith("score: 2/3 passed")


def test_each_expectation_can_fail_a_scenario(tmp_path, script):
    write(tmp_path, "s.json", [
        scenario("missing", expect={"contains": ["Nguyễn Thị Mai"]}),
        scenario("changed", existing=["Tên là Mai"], expect={"unchanged": True}),
        scenario("absent-is-case-insensitive", expect={"absent": ["TÊN"]}),
        scenario("model-failed", existing=["Tên là Mai"], expect={"unchanged": True}),
    ])
    script.reply("- Tên là Mai").reply("- Tên là Nguyễn Thị Mai").reply("- Tên là Mai").error("rejected")
    output = run_eval(tmp_path)
    assert "missing 'Nguyễn Thị Mai'" in output
    assert "list changed" in output
    assert "kept 'TÊN'" in output
    assert "pass failed (model:other)" in output
    assert "score: 0/4 passed" in output


def test_an_over_budget_list_fails_whatever_else_it_shows():
    from memory.compute import PassResult
    from memory.evaluation import Scenario, scenario_judge

    lines = tuple(f"Fact {i} about the user's long life story" for i in range(400))
    case = Scenario(name="over", language="en", source="chat", existing=lines, turns=(), unchanged=True)
    verdict = scenario_judge(case, PassResult(outcome="unchanged", lines=lines, existing=lines))
    assert not verdict.passed
    assert verdict.reasons[0].startswith("over budget")


def test_a_missing_folder_or_a_broken_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="not a directory"):
        run_eval(tmp_path / "nope")
    (tmp_path / "broken.json").write_text("[{", encoding="utf-8")
    with pytest.raises(CommandError, match="broken.json"):
        run_eval(tmp_path)
    (tmp_path / "broken.json").write_text('[{"name": "x", "turns": [{"role": "bot"}]}]', encoding="utf-8")
    with pytest.raises(CommandError, match=r"broken.json\[0\] \(x\): turn 0"):
        run_eval(tmp_path)


def test_the_shipped_scenarios_cover_the_brief():
    scenarios = scenarios_load(directory=DEFAULT_SCENARIOS)
    names = [s.name for s in scenarios]
    assert len(scenarios) >= 40
    assert len(set(names)) == len(names)
    assert {s.language for s in scenarios} >= {"en", "vi", "zh-hans", "ja", "ko", "ms"}
    assert {s.source for s in scenarios} == {"chat", "voice"}
    assert any("pirate speak" in t.content for s in scenarios for t in s.turns)
    assert any("ignore previous instructions" in t.content for s in scenarios for t in s.turns)
    for needed in ("alternate-universe", "scene-detail", "unrelated-line", "scene-state",
                   "green-not-blue", "health", "financial", "app-facts", "implied", "joke",
                   "newest-version", "verbatim", "folded", "question-only", "temporary-state"):
        assert any(needed in name for name in names), needed


def test_the_shipped_scenarios_run_end_to_end(script):
    count = len(scenarios_load(directory=DEFAULT_SCENARIOS))
    for _ in range(count):
        script.reply("EMPTY")
    output = run_eval(DEFAULT_SCENARIOS)
    rows = [line for line in output.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert len(rows) == count
    assert f"/{count} passed" in output.splitlines()[-1]
