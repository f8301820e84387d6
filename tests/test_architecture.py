"""Import rules that keep start-up lean (heavy libraries live in one module each, imported lazily), and
tests/ mirroring src/."""

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


def module_name(path: Path) -> str:
    parts = ["lean_harness", *path.relative_to(SRC).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


NAMES = {module_name(path): path for path in modules()}


def _resolved(path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module_name(path).split(".")
    base = base[: len(base) - node.level + (path.name == "__init__.py")]
    return ".".join([*base, node.module] if node.module else base)


def _owner(name: str) -> str | None:
    """The lean_harness module that importing `name` runs, or None outside the package."""
    while name and name not in NAMES:
        name = name.rpartition(".")[0]
    return name or None


def project_imports(path: Path) -> set[str]:
    """Every lean_harness module a file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolved(path, node)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            owner = _owner(target)
            if owner is not None and owner != module_name(path):
                found.add(owner)
    # `from lean_harness.memory.search import query` also runs the package's __init__: one that
    # holds only a docstring is no edge
    return {name for name in found if not _empty_package(name)}


def _empty_package(name: str) -> bool:
    path = NAMES[name]
    if path.name != "__init__.py":
        return False
    tree = ast.parse(path.read_text("utf-8"))
    return all(isinstance(node, ast.Expr) for node in tree.body)


GRAPH = {name: project_imports(path) for name, path in NAMES.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import circle once, as the path from its first module back to it (a depth-first search)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                found.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    return found


def test_no_module_imports_itself_back_through_others() -> None:
    assert [" -> ".join(c) for c in circles(GRAPH)] == []


def test_the_circle_search_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c", "a"]]


# The layers, lowest first: a module imports its own layer or those below, never one above,
# and the wings of one layer (search, compaction) never each other (adr/0034-memory-wings.md).
# A module that no layer names is in the base (errors, files, config, the scanners...), which
# imports no layer. A module is in the layer whose longest prefix names it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("lean_harness.memory",),  # the core: shard, rules, tokens, summary, journal, index, handle...
    ("lean_harness.memory.evidence",),
    # INDEX.md, the shards written, and the hooks' map of them
    ("lean_harness.memory.status", "lean_harness.memory.writes", "lean_harness.memory.recall_map"),
    ("lean_harness.memory.search", "lean_harness.memory.compaction"),
    ("lean_harness.memory.intake",),
    (  # the entry points
        "lean_harness.init",
        "lean_harness.deinit",
        "lean_harness.hooks",
        "lean_harness.skills",
        "lean_harness.doctor",
        "lean_harness.commands",
        "lean_harness.cli",
        "lean_harness.__main__",
    ),
)
APART = {3}  # the layers whose wings do not import each other
# Imports that climb: none.
CLIMBS: set[tuple[str, str]] = set()


def layer_of(name: str) -> tuple[int, str]:
    """(rank, the layer's prefix that names the module); (-1, "") for the base."""
    best = (-1, "")
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(f"{prefix}.")) and len(prefix) > len(best[1]):
                best = (rank, prefix)
    return best


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_a_module_imports_only_its_own_layer_and_those_below(name: str) -> None:
    rank, prefix = layer_of(name)
    wrong = []
    for target in sorted(GRAPH[name]):
        to_rank, to_prefix = layer_of(target)
        if (name, target) in CLIMBS:
            continue
        if to_rank > rank or (to_rank == rank and to_prefix != prefix and rank in APART):
            wrong.append(target)
    assert wrong == [], f"{name} imports a layer above or beside it: {wrong}"


# The import formats read sources into plain records: besides the base, they use only what an
# entry is (the shard format, the rules an allowance lists) and how a reference is written.
FORMATS = "lean_harness.memory.intake.formats"
FORMATS_MAY_USE = ("lean_harness.memory.shard", "lean_harness.memory.scans", "lean_harness.memory.evidence.evidence")


@pytest.mark.parametrize("name", sorted(n for n in GRAPH if n == FORMATS or n.startswith(f"{FORMATS}.")))
def test_import_formats_use_only_the_shard_format_and_references(name: str) -> None:
    used = sorted(
        t
        for t in GRAPH[name]
        if layer_of(t)[0] >= 0 and t not in FORMATS_MAY_USE and not t.startswith(f"{FORMATS}.") and t != FORMATS
    )
    assert used == []


# Modules that `lh memory put` and `lh memory get --query` must start without: the heavy
# libraries, standard-library modules that only other paths need (shutil, tempfile: argparse
# and importlib.resources pull them in unless told otherwise; textwrap: argparse's help
# layout), hmac, and lean-harness modules of other commands.
# tomllib (and the typing it imports) and hashlib are paid for: the config is parsed on every
# run, as no cache a repository can write is trusted for it (adr/0030).
NOT_ON_HOT_PATHS = (
    "tiktoken",
    "regex",
    "jsonschema",
    "tomli_w",
    "shutil",
    "tempfile",
    "textwrap",
    "importlib.resources",
    "hmac",
    "lean_harness.memory.compaction",
    "lean_harness.memory.intake",
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
    if args[1] == "get":  # the query that builds the index scans the shard, within the same bounds,
        # but for the tokenizer: it counts the header lines it prints for the first time
        code, loaded = _modules_after(tmp_path, "memory", "get", "--query", "stays")
        assert code == "0"
        first = [m for m in loaded if any(m == n or m.startswith(f"{n}.") for n in NOT_ON_HOT_PATHS)]
        assert sorted(m for m in first if not m.startswith(("regex", "_regex"))) == []
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


def test_every_module_has_a_test_file_of_its_name() -> None:
    """tests/ mirrors src/: module NAME is specified in tests/test_NAME.py; where a command shares its
    name with another module and runs something else, in tests/test_NAME_command.py (AGENTS.md)."""
    tests = Path(__file__).resolve().parent
    missing = [
        path.relative_to(SRC).as_posix()
        for path in modules()
        if path.stem not in ("__init__", "__main__") and not (tests / f"test_{path.stem}.py").exists()
    ]
    assert missing == []
    for name in ("status", "adopt"):
        assert (tests / f"test_{name}_command.py").exists(), name


def test_doctor_plugin_loads_no_memory_module_but_the_frontmatter_reader() -> None:
    code, loaded = _modules_after(SRC.parents[1], "doctor", "--plugin", str(SRC.parents[1]))
    assert code == "0"
    assert sorted(m for m in loaded if m.startswith("lean_harness.memory")) == [
        "lean_harness.memory",  # the packages around the one module a SKILL.md's frontmatter is read with
        "lean_harness.memory.intake",
        "lean_harness.memory.intake.formats",
        "lean_harness.memory.intake.formats.frontmatter",
    ]
