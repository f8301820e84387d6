"""Import rules that keep start-up lean: heavy libraries live in one module each, imported lazily."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "lean_harness"
OWNERS = {
    "tiktoken": "memory/tokens.py",
    "jsonschema": "schema.py",
    "tomli_w": "config.py",
    "regex": "memory/tokens.py",
}


def modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def imports(path: Path) -> list[tuple[str, bool]]:
    """(module, at top level) for every import in a file."""
    tree = ast.parse(path.read_text("utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, id(node) in top))
    return found


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_heavy_libraries_are_imported_lazily_and_only_by_their_owner(path: Path) -> None:
    name = path.relative_to(SRC).as_posix()
    for module, at_top in imports(path):
        root = module.split(".")[0]
        if root in OWNERS:
            assert OWNERS[root] == name, f"{name} imports {module}; only {OWNERS[root]} may"
            assert not at_top, f"{name} imports {module} at module level; import it where it is needed"


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_core_modules_do_not_import_the_cli(path: Path) -> None:
    if path.name in ("cli.py", "__main__.py"):
        return
    assert all(not module.startswith("lean_harness.cli") for module, _ in imports(path))
