"""Credentials in files: scan memory files (or any files) entry by entry (memory/scans.py), and mask text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lean_harness.errors import LhError
from lean_harness.memory.scans import Found, by_entry, rule_list
from lean_harness.memory.shard import Entry
from lean_harness.scanning import credentials

if TYPE_CHECKING:
    from lean_harness.config import Config


def allowed(entry: Entry) -> tuple[str, ...]:
    """The scanner rules an entry is allowed to trip."""
    return rule_list(entry.attr("allow-secret"))


def scan_paths(paths: Iterable[Path], root: Path, derived: Iterable[Path] = ()) -> tuple[list[Found], list[str]]:
    """Leaks in the files (folders are walked) and the files that could not be read as text.

    Files under `derived` (lh's caches) are read as Latin-1 when not UTF-8: a credential is ASCII.
    """
    leaks: list[Found] = []
    skipped: list[str] = []
    listed = files(paths)
    for path in [*listed, *(p for p in files(derived, walk_caches=True) if p not in listed)]:
        try:
            shown = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:  # outside the project
            shown = path.as_posix()
        try:
            data = path.read_bytes()
        except OSError as error:
            raise LhError(f"{shown}: cannot be read ({error.strerror}); check the path") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            if not any(path.is_relative_to(d) for d in derived):
                skipped.append(f"{shown}: not UTF-8 text; skipped")
                continue
            text = data.decode("latin-1")
        leaks += by_entry(text, shown, credentials.scan, allowed)
    return leaks, skipped


def project_files(config: Config) -> tuple[list[Path], list[Path]]:
    """What a project's scan covers: the memory dir and the config file, then lh's caches."""
    paths = [config.memory_dir, *([config.path] if config.path.is_file() else [])]
    return paths, [config.cache_dir] if config.cache_dir.is_dir() else []


def flagged(paths: Sequence[Path], read: Mapping[Path, bytes]) -> list[Path]:
    """The files in which a scan of the whole text (as Latin-1; bytes from `read` if there) finds a credential."""
    return [path for path in paths if credentials.scan((read.get(path) or path.read_bytes()).decode("latin-1"))]


def mask_entry(entry: Entry) -> tuple[str, list[credentials.Finding]]:
    """An entry's text with every credential masked, and the findings."""
    return mask_text(entry.text, allowed(entry))


def mask_text(text: str, allow: Sequence[str] = ()) -> tuple[str, list[credentials.Finding]]:
    """Any text with every credential (but the `allow` rules) masked, and the findings."""
    findings = credentials.scan(text, allow=allow)
    return (credentials.hide(text, findings) if findings else text), findings


def files(paths: Iterable[Path], walk_caches: bool = False) -> list[Path]:
    """The files of `paths`, folders walked (lh's caches too with `walk_caches`); an error for one that is not there."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and not p.is_symlink() and (walk_caches or ".cache" not in p.parts)
            )
        elif path.exists():
            found.append(path)
        else:
            raise LhError(f"{path.as_posix()}: no such file or folder")
    return found
