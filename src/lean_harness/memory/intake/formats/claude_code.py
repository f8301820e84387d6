"""Where Claude Code keeps a project's auto memory: `<config>/projects/<project>/memory`.

`<config>` is `$CLAUDE_CONFIG_DIR`, else `~/.claude`, whose `settings.json` may name another folder
(`autoMemoryDirectory`). `<project>` is the main git checkout's absolute path (worktrees share it),
else this checkout's or the folder's, with every character but ASCII letters and digits made '-';
one over MAX_NAME characters is matched by its first MAX_NAME and '-' (Claude Code ends it in a
hash). The folder is read in the memory-md format (adr/0014-import-and-inbox.md).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from lean_harness.errors import LhError

MAX_NAME = 200


def checkouts(root: Path) -> list[Path]:
    """The paths a project's memory may be keyed by: the main git checkout, this checkout, the folder."""
    found: list[Path] = []
    folder = root.resolve()
    for candidate in (folder, *folder.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            found.append(candidate)
            break
        if dot_git.is_file():
            found += [p for p in (_main_checkout(dot_git), candidate) if p is not None]
            break
    return list(dict.fromkeys([*found, folder]))


def _main_checkout(dot_git: Path) -> Path | None:
    """The main checkout of a linked worktree, from its `.git` file's gitdir and that folder's commondir."""
    try:
        line = dot_git.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = (dot_git.parent / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (gitdir / (gitdir / "commondir").read_text("utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return None
    return common.parent if common.name == ".git" else None


def memory_folder(root: Path) -> Path:
    """This project's Claude Code auto memory folder, or an error naming where it was looked for."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    config = Path(env).expanduser() if env else Path.home() / ".claude"
    try:
        settings = json.loads((config / "settings.json").read_bytes())
    except (OSError, ValueError):
        settings = None
    value = settings.get("autoMemoryDirectory") if isinstance(settings, dict) else None
    if isinstance(value, str) and value.strip():
        configured = Path(value).expanduser()
        if configured.is_dir():
            return configured
        raise LhError(f"no Claude Code memory folder at {configured} (autoMemoryDirectory in {config}/settings.json)")
    projects = config / "projects"
    tried = []
    for checkout in checkouts(root):
        name = re.sub(r"[^A-Za-z0-9]", "-", str(checkout))
        folder = projects / name / "memory"
        if len(name) > MAX_NAME:
            matches = sorted(projects.glob(f"{name[:MAX_NAME]}-*/memory")) if projects.is_dir() else []
            folder = matches[0] if len(matches) == 1 else folder
        if folder.is_dir():
            return folder
        tried.append(str(folder))
    raise LhError(
        f"no Claude Code memory for this project at {' or '.join(tried)};"
        " pass the folder itself as SOURCE if it is elsewhere"
    )
