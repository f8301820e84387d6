"""Import rules that keep start-up lean: heavy libraries live in one module each, imported lazily."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from support import lh

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


# Modules that `lh memory put` and `lh memory get --query` must start without: the heavy
# libraries, standard-library modules that only other paths need (shutil, tempfile: argparse
# and importlib.resources pull them in unless told otherwise; textwrap: argparse's help
# layout), the standard-library modules whose import costs more than a start-up can spend
# (dataclasses with inspect, ast and dis; typing; tomllib, whose work a remembered config
# saves: adr/0025; hashlib and hmac, which load OpenSSL, while no input hashed is large:
# adr/0029), and lean-harness modules of other commands.
NOT_ON_HOT_PATHS = (
    "tiktoken",
    "regex",
    "jsonschema",
    "tomli_w",
    "shutil",
    "tempfile",
    "textwrap",
    "importlib.resources",
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "typing",
    "tomllib",
    "hashlib",
    "hmac",
    "_hashlib",
    "lean_harness.memory.archive",
    "lean_harness.memory.compact",
    "lean_harness.memory.importing",
    "lean_harness.memory.inbox",
    "lean_harness.interop",
    "lean_harness.doctor",
    "lean_harness.schema",
)
PROBE = (
    "import sys; from lean_harness.cli import main; code = main(sys.argv[1:]);"
    " print(code, ' '.join(sorted(sys.modules)))"
)


# What a put of a note without references starts without, beyond NOT_ON_HOT_PATHS: the reading of
# references, the finding of loose prose (only a shard read whole has any) and the other
# commands' modules; tokens are counted without the rank table when the words were seen before.
NOT_IN_PUT = (
    "lean_harness.memory.evidence",
    "lean_harness.memory.prose",
    "lean_harness.memory.search",
    "lean_harness.memory.query",
    "lean_harness.memory.stale",
)


# What a query starts without, beyond NOT_ON_HOT_PATHS: the entry rules (no shard was named),
# INDEX.md's module and the hooks' record of writes. Its hits are scanned (adr/0031).
NOT_IN_QUERY = (
    "lean_harness.memory.rules",
    "lean_harness.memory.index",
    "lean_harness.hooks",
)


def _modules_after(root: Path, *args: str) -> tuple[str, set[str]]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "-C", str(root), *args], capture_output=True, text=True, check=False
    )
    code, _, names = result.stdout.splitlines()[-1].partition(" ")
    return code, set(names.split())


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("memory", "put", "failures", "the lock file stays after a crash"), id="put"),
        pytest.param(("memory", "get", "--query", "lock file crash"), id="query"),
    ],
)
def test_put_and_query_import_only_what_they_use(tmp_path: Path, args: tuple[str, ...]) -> None:
    assert lh("init", cwd=tmp_path).returncode == 0
    assert lh("memory", "put", "failures", "the lock file stays after a crash", cwd=tmp_path).returncode == 0
    if args[1] == "get":  # the query that builds the index scans the shard, within the same bounds
        code, loaded = _modules_after(tmp_path, "memory", "get", "--query", "stays")
        assert code == "0"
        assert sorted(m for m in loaded if any(m == n or m.startswith(f"{n}.") for n in NOT_ON_HOT_PATHS)) == []
    code, loaded = _modules_after(tmp_path, *args)
    assert code == "0"
    unwanted = sorted(m for m in loaded if any(m == n or m.startswith(f"{n}.") for n in NOT_ON_HOT_PATHS))
    assert unwanted == []
    commands = sorted(m for m in loaded if m.startswith("lean_harness.commands."))
    assert commands == [f"lean_harness.commands.{'put' if args[1] == 'put' else 'get'}"]
    if args[1] == "put":
        assert sorted(m for m in loaded if m in NOT_IN_PUT) == []
    else:
        assert sorted(m for m in loaded if m in NOT_IN_QUERY) == []
