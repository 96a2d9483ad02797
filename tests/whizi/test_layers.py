"""The code keeps its layers (README, "Layout"): every import goes down the order
whizi < accounts < memory < chat < lifecycle, and other apps reach memory only through
its front door, memory.services (verbs) and memory.selectors (reads), models included.

The offline model (offline/) is memory's rules run as a model: it imports whizi and
memory's own rule modules, and nothing imports it (litellm loads it by dotted path).
Every .py file of the product is parsed (ast): imports inside functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("whizi", "accounts", "memory", "chat", "lifecycle")
OFFLINE_MAY_IMPORT = {"whizi", "memory"}
FRONT_DOOR = {"memory.services", "memory.selectors"}
# The rule modules the offline model applies as the memory model (and the prompts it reads).
OFFLINE_READS = {"memory.grammar", "memory.lines", "memory.tokens", "memory.own_words", "memory.prompts"}


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted module) of every absolute import; `from memory import texts` is memory.texts."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if "." in node.module:
                found.append((node.lineno, node.module))
            else:
                found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _allowed_packages(package: str) -> set[str]:
    if package == "offline":
        return OFFLINE_MAY_IMPORT
    return set(LAYERS[:LAYERS.index(package)])


def import_violations(root: Path) -> list[str]:
    """Every import that goes up the layers or around memory's front door, as file:line."""
    packages = (*LAYERS, "offline")
    problems = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            where = path.relative_to(root).as_posix()
            for line, module in _imports(ast.parse(path.read_text(encoding="utf-8"))):
                target = module.split(".")[0]
                if target not in packages or target == package:
                    continue
                if target not in _allowed_packages(package):
                    problems.append(f"{where}:{line} imports {module}, above {package} in the layers")
                    continue
                if target != "memory":
                    continue
                door = ".".join(module.split(".")[:2])
                if door in FRONT_DOOR or (package == "offline" and door in OFFLINE_READS):
                    continue
                problems.append(f"{where}:{line} imports {module}, around memory.services/selectors")
    return problems


def test_every_import_goes_down_the_layers_and_through_memorys_front_door():
    assert import_violations(ROOT) == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for package in (*LAYERS, "offline"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    for name, source in files.items():
        (tmp_path / name).write_text(source)
    return tmp_path


def test_an_upward_import_is_caught_even_inside_a_function(tmp_path):
    root = _tree(tmp_path, {"accounts/owner.py": "def f():\n    from chat.models import Message\n",
                            "memory/run.py": "import lifecycle.views\n",
                            "offline/chat.py": "from chat import prompt\n"})
    assert import_violations(root) == [
        "accounts/owner.py:2 imports chat.models, above accounts in the layers",
        "memory/run.py:1 imports lifecycle.views, above memory in the layers",
        "offline/chat.py:1 imports chat.prompt, above offline in the layers",
    ]


def test_an_import_around_memorys_front_door_is_caught_models_included(tmp_path):
    root = _tree(tmp_path, {"chat/usage.py": "from memory.models import MemoryPass\n",
                            "lifecycle/views.py": ("from memory import texts\n"
                                                   "from memory.services import memory_read\n"),
                            "chat/exchange.py": "from memory.selectors import pass_marks\n",
                            "memory/views.py": "from memory.store import memory_read\n"})
    assert import_violations(root) == [
        "chat/usage.py:1 imports memory.models, around memory.services/selectors",
        "lifecycle/views.py:1 imports memory.texts, around memory.services/selectors",
    ]
