"""A plugin's manifests: plugin.json, marketplace.json and hooks/hooks.json, checked as clients read them.

Each client reads its own places (Claude Code and Codex CLI `.claude-plugin/`, Copilot CLI the root,
then `.github/plugin/`), so copies must be equal; the shapes are the shipped schemas (adr/0013-doctor.md).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PLUGIN_PLACES = (
    "plugin.json",
    ".plugin/plugin.json",
    ".github/plugin/plugin.json",
    ".claude-plugin/plugin.json",
    ".codex-plugin/plugin.json",
)
MARKETPLACE_PLACES = (
    "marketplace.json",
    ".plugin/marketplace.json",
    ".github/plugin/marketplace.json",
    ".claude-plugin/marketplace.json",
)
CLAUDE_PLUGIN = ".claude-plugin/plugin.json"
HOOKS = "hooks/hooks.json"
ROOT_VARIABLES = ("${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT")


@dataclass(frozen=True)
class Manifest:
    """One manifest file: its path relative to the plugin folder and its parsed JSON."""

    path: str
    data: Any


def load(folder: Path, places: tuple[str, ...]) -> tuple[list[Manifest], list[str]]:
    """The copies of a manifest found in `places`, and a problem for each that is not valid JSON."""
    found: list[Manifest] = []
    problems: list[str] = []
    for place in places:
        path = folder / place
        if not path.is_file():
            continue
        try:
            found.append(Manifest(place, json.loads(path.read_bytes().decode("utf-8"))))
        except UnicodeDecodeError:
            problems.append(f"{place}: not UTF-8 text; re-save it as UTF-8")
        except json.JSONDecodeError as error:
            problems.append(f"{place}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}")
    return found, problems


def validate(manifest: Manifest, schema_name: str) -> list[str]:
    """Every problem of a manifest against a shipped schema, as "path: at key: message"."""
    from lean_harness import schema

    return [
        f"{manifest.path}: at {p.location or '(top)'}: {p.message}" for p in schema.validate(manifest.data, schema_name)
    ]


def differences(copies: list[Manifest]) -> list[str]:
    """A line for each copy whose content differs from the first copy's."""
    first = copies[0]
    found: list[str] = []
    for other in copies[1:]:
        if other.data == first.data:
            continue
        if isinstance(first.data, dict) and isinstance(other.data, dict):
            keys = sorted(k for k in {*first.data, *other.data} if first.data.get(k) != other.data.get(k))
            found.append(f"{other.path} differs from {first.path} at {', '.join(keys)}")
        else:
            found.append(f"{other.path} differs from {first.path}")
    return found


def entry_for(marketplace: Manifest, plugin_name: str, root: Path, folder: Path) -> tuple[int, dict[str, Any]] | None:
    """The marketplace entry whose relative source is the plugin folder, else the one named like it."""
    entries = _entries(marketplace)
    for number, entry in entries:
        target = relative_source(entry, root)
        if target is not None and target.resolve() == folder.resolve():
            return number, entry
    for number, entry in entries:
        if entry.get("name") == plugin_name:
            return number, entry
    return None


def relative_source(entry: dict[str, Any], root: Path) -> Path | None:
    """Where a relative `source` points: from the marketplace root (the folder above .claude-plugin/)."""
    source = entry.get("source")
    if isinstance(source, dict) and source.get("source") == "local":
        source = source.get("path")
    if not isinstance(source, str) or not source.startswith("./"):
        return None
    return root / source


def missing_sources(marketplace: Manifest, root: Path) -> list[str]:
    """A line for each relative plugin source that is not a folder."""
    return [
        f"{marketplace.path}: at plugins.{number}.source: {entry['source']!r} is not a folder in {root.name or '.'}"
        for number, entry in _entries(marketplace)
        if (target := relative_source(entry, root)) is not None and not target.is_dir()
    ]


def hook_commands(data: Any) -> list[tuple[str, str]]:
    """(key path, command) for every command handler in hooks.json data."""
    found: list[tuple[str, str]] = []
    events = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(events, dict):
        return found
    for event, groups in sorted(events.items()):
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and isinstance(handler.get("command"), str):
                    found.append((f"hooks.{event}.{g}.hooks.{h}", handler["command"]))
    return found


def command_problems(command: str, folder: Path) -> list[str]:
    """What a hook command names that does not exist: plugin files, or a program not on PATH."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        return [f"cannot be split into words as a shell would ({error})"]
    problems: list[str] = []
    for position, word in enumerate(words):
        inside = _in_plugin(word, folder)
        if inside is None:
            if position == 0 and "$" not in word and "/" not in word and shutil.which(word) is None:
                problems.append(f"runs {word}, which is not on PATH here")
            continue
        if not inside.exists():
            problems.append(f"names {word}, which is not in the plugin")
        elif position == 0 and os.name == "posix" and not os.access(inside, os.X_OK):
            problems.append(f"runs {word}, which is not executable; chmod +x it")
    return problems


def _in_plugin(word: str, folder: Path) -> Path | None:
    return next((folder / word[len(v) :].lstrip("/") for v in ROOT_VARIABLES if word.startswith(v)), None)


def _entries(marketplace: Manifest) -> list[tuple[int, dict[str, Any]]]:
    data = marketplace.data if isinstance(marketplace.data, dict) else {}
    plugins = data.get("plugins")
    if not isinstance(plugins, list):
        return []
    return [(number, entry) for number, entry in enumerate(plugins) if isinstance(entry, dict)]
