"""`lh deinit`: take lean-harness out of a project.

It removes every block lh wrote into a file the project shares with other tools (the
`.gitignore` and `.gitattributes` blocks of `lh init`, the pointer in AGENTS.md and CLAUDE.md)
and keeps every other line as it was; a file left with nothing in it is deleted, as lh made it.
The config, memory and caches stay unless `purge` is asked for. Running it again changes nothing.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from lean_harness import config as config_mod
from lean_harness import pointer
from lean_harness.errors import LhError
from lean_harness.files import display, read_text, refuse_symlink, without_block, write_text

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
    """The folders that hold lean-harness data in the project: `.agents/`, and the memory and
    cache dirs when the config puts them elsewhere inside the project."""
    return [folder for folder, _ in _owned(root)]


def _owned(root: Path) -> list[tuple[Path, list[Path]]]:
    """Each such folder with what lh wrote in it: all of `.agents/`; elsewhere only lh's own
    files (the shards, INDEX.md, the archive, pending notes, the import log, the cache's `lh/`)."""
    agents = root / ".agents"
    found: list[tuple[Path, list[Path]]] = [(agents, [agents])]
    try:
        cfg = config_mod.load(root)
    except LhError:
        cfg = None  # no config, or a broken one: .agents/ is all we know of
    if cfg is not None:
        names = [f"{name}.md" for name, _ in cfg.shards] + ["INDEX.md", "archive", ".pending", ".imports"]
        found.append((cfg.memory_dir, [cfg.memory_dir / name for name in names]))
        found.append((cfg.cache_dir, [cfg.cache_dir / "lh"]))
    owned: list[tuple[Path, list[Path]]] = []
    for folder, paths in found:
        absolute = Path(os.path.normpath(folder.absolute()))
        if absolute == root or not absolute.is_relative_to(root):
            continue
        if any(absolute.is_relative_to(other) for other, _ in owned):
            continue
        if absolute.exists() or absolute.is_symlink():
            owned.append((absolute, [Path(os.path.normpath(path.absolute())) for path in paths]))
    return owned


def run(root: Path, purge: bool = False) -> DeinitResult:
    """Remove lh's blocks from the project's shared files, and with `purge` its folders."""
    plans: list[tuple[Path, str]] = []
    for name, start, end in BLOCKS:
        path = root / name
        if not (path.exists() or path.is_symlink()):
            continue
        refuse_symlink(path, root)  # every file is checked and read before the first is written
        text = read_text(path, root, keep_bom=True)
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
        if folder.exists() and not any(folder.iterdir()):
            folder.rmdir()
        shown = display(folder, root) + "/"
        (emptied if folder.exists() else deleted).append(shown)
    kept = () if purge else tuple(display(f, root) + "/" for f in folders(root))
    return DeinitResult(root, tuple(cleaned), tuple(deleted), tuple(emptied), kept)
