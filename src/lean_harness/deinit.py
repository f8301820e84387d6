"""`lh deinit`: take lean-harness out of a project.

It removes every block lh wrote into a file the project shares with other tools (the
`.gitignore` and `.gitattributes` blocks of `lh init`, the pointer in AGENTS.md and CLAUDE.md)
and keeps every other line as it was; a file left with nothing in it is deleted, as lh made it.
The config, memory and caches stay unless `purge` is asked for. Running it again changes nothing.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from lean_harness import config as config_mod
from lean_harness import locations, pointer, usage
from lean_harness.errors import LhError
from lean_harness.files import display, read_text, refuse_symlink, without_block, write_text
from lean_harness.memory.handle import CACHE_NAMES

# The first words of every block lh has written, whatever a version said after them, and the
# line that ends it (adr/0004-committed-and-ignored.md, adr/0008-merges.md, pointer.py).
GIT_START = "# >>> lean-harness >>>"
GIT_END = "# <<< lean-harness <<<"
POINTER_START = pointer.START.split(" (", 1)[0]
BLOCKS = (
    (".gitignore", GIT_START, GIT_END),
    (".gitattributes", GIT_START, GIT_END),
    *((name, POINTER_START, pointer.END) for name in pointer.NAMES),
)


@dataclass(frozen=True)
class DeinitResult:
    """What deinit changed, as paths relative to the project root."""

    root: Path
    cleaned: tuple[str, ...]  # a block removed, the file kept
    deleted: tuple[str, ...]  # files left empty, and folders purged
    emptied: tuple[str, ...]  # purged folders kept for the other files in them, lh's removed
    kept: tuple[str, ...]  # lean-harness folders left in place (without purge)


def project_root(start: Path) -> Path:
    """The project with a config at or above `start`, else `start` (blocks may outlive the config)."""
    try:
        return config_mod.find_root(start)
    except LhError:
        return start.resolve()


def folders(root: Path) -> list[Path]:
    """The folders holding lean-harness data: `.agents/`, and the memory and cache dirs elsewhere in the project."""
    return [folder for folder, _ in _owned(root)]


# What lh writes, by name, in the folders it may share with the user's own files: a pending
# note (memory/inbox.py), a consumed-note marker, an import record (memory/importing.py).
_PENDING_NOTE = re.compile(r"\d{8}T\d{6}\.\d{9}Z-\d+-[0-9a-f]{8}\.md")
_CONSUMED = re.compile(r"[0-9a-f]{64}")
_IMPORT_RECORD = re.compile(r"[a-z][a-z-]*-[0-9a-f]{12}\.json")


def _owned(root: Path) -> list[tuple[Path, list[Path]]]:
    """Each folder holding lean-harness data with the paths lh wrote in it (by name), and nothing else."""
    agents = root / ".agents"
    found: list[tuple[Path, list[Path]]] = [(agents, [agents / "lh.toml", agents / "lh.toml.bak", root / usage.PATH])]
    try:
        cfg = config_mod.load(root)
    except LhError:
        cfg = None  # no config, or a broken one: the default places are all we know of
    memory_dir = cfg.memory_dir if cfg else agents / "memory"
    cache_dir = cfg.cache_dir if cfg else agents / ".cache"
    shards = cfg.shared_names if cfg else ()
    personal = Path(locations.personal_dir(str(root), str(memory_dir)))
    named = cfg.personal if cfg else config_mod.DEFAULTS["memory"]["personalShards"]
    found.append((personal, [folder / f"{name}.md" for folder in (personal, personal / "archive") for name in named]))
    memory = [memory_dir / f"{name}.md" for name in shards] + [memory_dir / "INDEX.md"]
    memory += [memory_dir / "archive" / f"{name}.md" for name in shards]
    pending = memory_dir / ".pending"
    memory += _named(pending, _PENDING_NOTE) + _named(pending / ".consumed", _CONSUMED)
    memory += _named(memory_dir / ".imports", _IMPORT_RECORD)
    # The default cache's `lh/` is lh's by its place; a cache dir set elsewhere holds lh's names only.
    found[0][1].append(agents / ".cache" / "lh")
    found += [(memory_dir, memory), (cache_dir, [cache_dir / "lh" / name for name in CACHE_NAMES])]
    owned: list[tuple[Path, list[Path]]] = []
    for folder, paths in found:
        absolute = Path(os.path.normpath(folder.absolute()))
        if absolute == root or not absolute.is_relative_to(root):
            continue
        normal = [Path(os.path.normpath(path.absolute())) for path in paths]
        for other, held in owned:
            if absolute.is_relative_to(other):  # the default memory and cache dirs, inside .agents/
                held.extend(normal)
                break
        else:
            if absolute.exists() or absolute.is_symlink():
                owned.append((absolute, normal))
    return owned


def _named(folder: Path, name: re.Pattern[str]) -> list[Path]:
    """The files in `folder` whose whole name matches `name`."""
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(path for path in folder.iterdir() if name.fullmatch(path.name) and not path.is_dir())


def _prune(folder: Path, top: Path) -> None:
    """Remove `folder` and each parent up to `top` while they are empty."""
    while folder.is_relative_to(top) and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        if folder == top:
            return
        folder = folder.parent


def run(root: Path, purge: bool = False) -> DeinitResult:
    """Remove lh's blocks from the project's shared files, and with `purge` its folders."""
    plans: list[tuple[Path, str]] = []
    for name, start, end in BLOCKS:
        path = root / name
        if not (path.exists() or path.is_symlink()):
            continue
        text = read_text(path, root, keep_bom=True)  # every file is checked and read before the first is written
        remaining = without_block(text, start, end)
        if remaining != text:
            plans.append((path, remaining if remaining.removeprefix("\ufeff").strip() else ""))
    targets = _owned(root) if purge else []
    for folder, paths in targets:
        refuse_symlink(folder, root)
        for path in paths:
            refuse_symlink(path, root)
    cleaned: list[str] = []
    deleted: list[str] = []
    emptied: list[str] = []
    for path, remaining in plans:
        if remaining.strip():
            write_text(path, remaining)
            cleaned.append(display(path, root))
        else:
            path.unlink()
            deleted.append(display(path, root))
    for folder, paths in targets:
        for path in paths:
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
        for path in sorted(paths, key=lambda p: len(p.parts), reverse=True):
            _prune(path.parent, folder)
        _prune(folder, folder)
        (emptied if folder.exists() else deleted).append(display(folder, root) + "/")
    kept = () if purge else tuple(display(f, root) + "/" for f in folders(root))
    return DeinitResult(root, tuple(cleaned), tuple(deleted), tuple(emptied), kept)
