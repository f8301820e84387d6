"""`lh init`: the config, the memory dir with its shards and INDEX.md, and the .gitignore and
.gitattributes blocks.

Running it again changes nothing; it never touches a user's own .gitignore lines, never
rewrites an existing shard, and adopts an existing memory dir only when told to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lean_harness import config as config_mod
from lean_harness import locations
from lean_harness.errors import LhError
from lean_harness.files import display, read_text, refuse_symlink, with_block, write_text
from lean_harness.memory import handle, status
from lean_harness.memory.shard import new_shard_text

BLOCK_START = "# >>> lean-harness >>> (managed by lh init from artifacts.ignored in .agents/lh.toml)"
BLOCK_END = "# <<< lean-harness <<<"
ATTRIBUTES_START = "# >>> lean-harness >>> (managed by lh init from memory.dir in .agents/lh.toml)"
# git's built-in union driver keeps the entries both branches added, with no merge config, so a
# fresh clone merges the same way; lh memory index then rebuilds INDEX.md (adr/0008-merges.md).
ATTRIBUTES = "merge=union text eol=lf"
QUOTED = ' \t"\\'  # a pattern holding one of these is written quoted, as git reads it


@dataclass(frozen=True)
class InitResult:
    """Which files init created or changed, relative to the project root."""

    root: Path
    created: tuple[str, ...]
    updated: tuple[str, ...]
    unlisted: tuple[str, ...] = ()  # "path: the command that adds it": shard files the config does not name


def run(root: Path, force: bool = False) -> InitResult:
    """Set up lean-harness in `root`, keeping what is there; a failed write undoes every file and folder init made."""
    root = root.resolve()
    if not root.is_dir():
        raise LhError(f"{root.as_posix()} is not a folder; run lh init in the project's folder")
    paths = _managed(root)
    before = {path: _bytes(path) for path in paths}
    # The folders init may create, outermost first: .agents, the memory dir (paths[-1] is INDEX.md), its .local.
    memory_dir = paths[-1].parent
    personal = Path(locations.personal_dir(str(root), str(memory_dir)))
    made = (root / locations.CONFIG_PATH.split("/")[0], memory_dir, personal)
    folders = [f for f in made if not f.exists()]
    try:
        return _run(root, force)
    except BaseException:
        for path, data in before.items():
            if data is None and path.is_file() and not path.is_symlink():
                path.unlink()
            elif data is not None and _bytes(path) != data:
                path.write_bytes(data)
        import shutil

        for folder in folders:
            if folder.is_dir() and not folder.is_symlink():
                shutil.rmtree(folder)
        raise


def _managed(root: Path) -> list[Path]:
    config_path = root / locations.CONFIG_PATH
    paths = [
        config_path,
        config_path.with_name(config_path.name + ".bak"),
        root / ".gitignore",
        root / ".gitattributes",
    ]
    try:
        cfg = config_mod.load(root)
        folder = cfg.memory_dir
        shards = [cfg.shard_path(name) for name in cfg.shard_names]
    except (LhError, OSError):
        folder = root / config_mod.DEFAULTS["memory"]["dir"]
        defaults = config_mod.DEFAULTS["memory"]
        shards = [folder / f"{name}.md" for name in defaults["shards"]]
        personal = Path(locations.personal_dir(str(root), str(folder)))
        shards += [personal / f"{name}.md" for name in defaults["personalShards"]]
    paths += [*shards, folder / "INDEX.md"]
    for path in paths:
        refuse_symlink(path, root)
        if path.is_dir():
            raise LhError(
                f"{display(path, root)} is a folder where lh init writes a file; move it away, then run lh init"
            )
    return paths


def _bytes(path: Path) -> bytes | None:
    try:
        return None if path.is_symlink() else path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _run(root: Path, force: bool) -> InitResult:
    created: list[str] = []
    updated: list[str] = []
    config_path = root / locations.CONFIG_PATH
    refuse_symlink(config_path, root)
    if config_path.exists() and not force:
        cfg = config_mod.load(root)
    else:
        defaults_dir = root / config_mod.DEFAULTS["memory"]["dir"]
        if defaults_dir.exists() and not config_path.exists() and not force and any(defaults_dir.iterdir()):
            raise LhError(
                f"{display(defaults_dir, root)} already holds files but there is no config;"
                ' run "lh init --force" to adopt it (no file in it is changed)'
            )
        if config_path.exists():
            backup = config_path.with_name(config_path.name + ".bak")
            write_text(backup, config_path.read_text("utf-8", errors="replace"))
            updated.append(display(backup, root))
        (updated if config_path.exists() else created).append(display(config_path, root))
        # The personal scope's default stays out of the file, which an older lh then still reads.
        shared = {k: v for k, v in config_mod.DEFAULTS["memory"].items() if k != "personalShards"}
        write_text(config_path, config_mod.render({**config_mod.DEFAULTS, "memory": shared}))
        cfg = config_mod.load(root)
    created += create_shards(cfg)
    memory = handle.open_memory(cfg)
    index_existed = memory.index_path.exists()
    from lean_harness.memory.compaction import archive  # an existing memory may hold a merge to settle

    result = status.reindex(memory, settle=archive.settle)
    if result.written:
        (updated if index_existed else created).append(result.path)
    for name, write in ((".gitignore", write_ignore_block), (".gitattributes", write_attributes_block)):
        existed = (root / name).exists()
        if write(cfg):
            (updated if existed else created).append(display(root / name, root))
    unlisted = tuple(f"{display(path, root)}: {fix}" for path, fix in status.unlisted_shards(cfg))
    return InitResult(root, tuple(created), tuple(updated), unlisted)


def create_shards(cfg: config_mod.Config) -> list[str]:
    """Create the memory dir and every configured shard that does not exist yet; the paths created."""
    root, memory_dir = cfg.root, cfg.memory_dir
    refuse_symlink(memory_dir, root)
    memory_dir.mkdir(parents=True, exist_ok=True)
    created: list[str] = []
    for name, description in cfg.shards:
        path = cfg.shard_path(name)
        refuse_symlink(path, root)
        path.parent.mkdir(exist_ok=True)
        if not path.exists():
            write_text(path, new_shard_text(name, description))
            created.append(display(path, root))
    return created


def write_ignore_block(cfg: config_mod.Config) -> bool:
    """Write the managed .gitignore block from artifacts.ignored; False when it was already current."""
    personal = f"{display(cfg.personal_dir, cfg.root)}/"  # the personal scope never reaches git (adr/0040)
    return _write_block(cfg.root / ".gitignore", cfg.root, [BLOCK_START, *cfg.ignored, personal])


def write_attributes_block(cfg: config_mod.Config) -> bool:
    """Write the managed .gitattributes block for the shards and INDEX.md, and the archive; False when current."""
    folder = display(cfg.memory_dir, cfg.root).rstrip("/")
    lines = [ATTRIBUTES_START]
    # Compaction appends to archive/SHARD.md as a put appends to a shard (adr/0012-compaction.md).
    for glob in (f"{folder}/*.md", f"{folder}/archive/*.md"):
        quoted = '"' + glob.replace("\\", "\\\\").replace('"', '\\"') + '"'
        lines.append(f"{quoted if any(c in glob for c in QUOTED) else glob} {ATTRIBUTES}")
    return _write_block(cfg.root / ".gitattributes", cfg.root, lines)


def _write_block(path: Path, root: Path, lines: list[str]) -> bool:
    """Write the managed block of `lines` (its start line first) into the file at `path`, keeping the rest."""
    block = "\n".join([*lines, BLOCK_END]) + "\n"
    refuse_symlink(path, root)
    try:
        text = read_text(path, root, keep_bom=True)
    except FileNotFoundError:
        return write_text(path, block)
    return write_text(path, with_block(text, block, lines[0], BLOCK_END))
