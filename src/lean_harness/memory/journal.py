"""All-or-nothing writes of several memory files: temp files, a journal, renames (adr/0033).

`commit` writes every new file to a synced temp file beside its target (files.stage), then the
journal, whose appearance is the commit point, then renames each temp over its target and
removes the journal. A process killed before the commit point leaves the old files; killed after
it, the next command that takes the lock finishes the renames (`recover`), but only over files
that are what the journal recorded before or after: any other (an edit, another branch) is never
overwritten, and the journal is kept aside as `journal.unapplied` for doctor to name.

The journal lives in the git-ignored cache (`<cacheDir>/lh/journal`) and names the device and
inode of its memory dir, so one that arrives with a checkout or a copy is never applied. It is
JSON: `{"version": 4, "folder": [device, inode], "replace": [[target, temp, before, after], ...],
"delete": [[target, before], ...]}`, paths relative to the memory dir, `before` and `after` the
SHA-256 of the bytes (null: no file); only names lh writes are accepted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.files import display, is_temp, refuse_symlink, stage, sync_dir, write_atomic
from lean_harness.hookstate import Stat, stat_key, stat_of

JOURNAL_NAME = "journal"
UNAPPLIED_NAME = "journal.unapplied"
LEGACY_NAME = ".lh-journal"
_VERSION = 4
# Checked only when a journal is read back (recovery), so no write compiles them.
_TARGET = (
    # a shard or archive, also in the personal folder (locations.personal_dir): ../NAME.local/ or .local/
    r"(?:(?:\.\./[A-Za-z0-9._-]+\.local/|\.local/)?(?:archive/)?[A-Za-z0-9][A-Za-z0-9._-]*\.md"
    r"|\.imports/[A-Za-z0-9][A-Za-z0-9._-]*\.json"
    r"|\.pending/\.consumed/[0-9a-f]{64})"
)
_DIGEST = r"[0-9a-f]{64}"


class Changed(LhError):
    """A file changed between the moment a write read it and its rename: nothing was written."""


def commit(
    folder: Path,
    changes: Mapping[Path, bytes | None],
    journal: Path,
    before: Mapping[Path, str | None] | None = None,
    *,
    root: Path,
) -> None:
    """Replace each file with its bytes, or delete it (None): all, or none if interrupted, and none
    when one of them, or a folder between it and the project `root`, is a symbolic link.

    `journal` is where the commit is recorded until it is done: `<cacheDir>/lh/journal`. `before`
    holds, for files the caller read to make their new bytes, the digest of what it read (None: no
    file); one that no longer holds it stops the write with nothing written (`Changed`).
    """
    for path in changes:
        refuse_symlink(path, root)
    expected = before or {}
    replace: list[list[str | None]] = []
    delete: list[list[str | None]] = []
    stats: dict[Path, Stat | None] = {}
    staged: list[str] = []
    logged = False  # whether this commit wrote the journal
    try:
        for path, data in sorted(changes.items()):
            name = Path(os.path.relpath(path, folder)).as_posix()
            stats[path], digest = _state(path)
            if path in expected and expected[path] != digest:
                raise _changed(name)
            if data is None:
                delete.append([name, digest])
                continue
            if name.startswith(("../", ".local/")):  # the personal folder, made by its first write (adr/0040)
                path.parent.mkdir(exist_ok=True)
            temp = stage(path, data)
            staged.append(temp)
            temp_name = Path(os.path.relpath(temp, folder)).as_posix()
            replace.append([name, temp_name, digest, hashlib.sha256(data).hexdigest()])
        for parent in sorted({os.path.dirname(t) for t in staged}):
            sync_dir(parent)
        # One file replaced needs no journal: its rename is the commit point.
        if len(replace) + len(delete) > 1 or delete:
            record = {"version": _VERSION, "folder": _identity(folder), "replace": replace, "delete": delete}
            logged = True  # first: a write that fails after its rename still leaves a journal to remove
            write_atomic(journal, json.dumps(record, indent=1).encode("utf-8"), compare=False)
        for path, seen in stats.items():  # an editor's save since the read is never renamed over
            if stat_of(path) != seen:
                raise _changed(Path(os.path.relpath(path, folder)).as_posix())
    except BaseException:
        if logged:
            journal.unlink(missing_ok=True)  # first: without it no temp file is renamed
        for temp in staged:
            Path(temp).unlink(missing_ok=True)
        raise
    _apply(folder, [(str(r[0]), str(r[1])) for r in replace], [str(d[0]) for d in delete], journal if logged else None)


def recover(folder: Path, journal: Path, root: Path) -> bool:
    """Finish the commit a killed process left half done, if any; True when there was one.

    A journal written for another folder (copied, committed, unpacked) is left alone: `stray`
    says so, for doctor. One whose files are no longer what it recorded is kept aside, unapplied.
    """
    refuse_symlink(journal, root)
    try:
        data = journal.read_bytes()
    except FileNotFoundError:
        return False
    record = _record(data)
    if record is None:
        raise LhError(
            f"{display(journal, root)} is not a journal lh wrote; a write may have been interrupted."
            " Check the memory files with git diff, then delete the journal"
        )
    if record["folder"] != _identity(folder):
        return False
    replace: list[tuple[str, str]] = []
    delete: list[str] = []
    for name, temp, before, after in record["replace"]:
        refuse_symlink(folder / name, root)
        now = _state(folder / name)[1]
        if now == after:
            continue  # renamed already
        if now != before or _state(folder / temp)[1] != after:
            return _set_aside(journal)
        replace.append((name, temp))
    for name, before in record["delete"]:
        refuse_symlink(folder / name, root)
        now = _state(folder / name)[1]
        if now is not None and now != before:
            return _set_aside(journal)
        delete.append(name)
    _apply(folder, replace, delete, journal)
    return True


def stray(folder: Path, journal: Path) -> list[Path]:
    """Journals that will never be applied here: one in the memory dir, one written for another
    folder, and one kept aside because its files changed before it could be finished."""
    found = [folder / LEGACY_NAME] if (folder / LEGACY_NAME).exists() else []
    try:
        record = _record(journal.read_bytes())
    except OSError:
        record = None
    if record is not None and record["folder"] != _identity(folder):
        found.append(journal)
    unapplied = journal.with_name(UNAPPLIED_NAME)
    return [*found, unapplied] if unapplied.exists() else found


def _set_aside(journal: Path) -> bool:
    os.replace(journal, journal.with_name(UNAPPLIED_NAME))
    sync_dir(journal.parent)
    return True


def _changed(name: str) -> Changed:
    return Changed(f"{name} in the memory dir changed while lh wrote it; nothing was written. Run the command again")


def _state(path: Path) -> tuple[Stat | None, str | None]:
    """A file's size, mtime and inode, and the digest of its bytes; None for both when there is none."""
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read()
    except FileNotFoundError:
        return None, None
    return stat_key(info), hashlib.sha256(data).hexdigest()


def _identity(folder: Path) -> list[int]:
    info = folder.stat()
    return [info.st_dev, info.st_ino]


def _record(data: bytes) -> dict[str, list] | None:  # type: ignore[type-arg]
    """The journal in `data` when it has the shape and names the module docs give, else None."""
    try:
        record = json.loads(data)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("version") != _VERSION:
        return None
    identity = record.get("folder")
    if not (isinstance(identity, list) and len(identity) == 2 and all(type(n) is int for n in identity)):
        return None
    replace, delete = record.get("replace"), record.get("delete")
    if not isinstance(replace, list) or not isinstance(delete, list):
        return None
    for item in replace:
        if not (isinstance(item, list) and len(item) == 4 and all(isinstance(p, str) for p in item[:2])):
            return None
        name, temp, before, after = item
        folder, _, base = temp.rpartition("/")
        if not re.fullmatch(_TARGET, name) or name.rpartition("/")[0] != folder:
            return None
        if not (is_temp(base) and base[1:-13] == name.rpartition("/")[2]):  # ".NAME.XXXXXXXX.tmp"
            return None
        if not (_digest(before, optional=True) and _digest(after, optional=False)):
            return None
    for item in delete:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            return None
        if not (re.fullmatch(_TARGET, item[0]) and _digest(item[1], optional=True)):
            return None
    return record


def _apply(folder: Path, replace: list[tuple[str, str]], delete: list[str], journal: Path | None) -> None:
    parents = {(folder / name).parent for name in [*(name for name, _ in replace), *delete]}
    for name, temp in replace:
        os.replace(folder / temp, folder / name)
    for name in delete:
        (folder / name).unlink(missing_ok=True)
    for parent in sorted(parents):
        sync_dir(parent)
    if journal is not None:
        journal.unlink(missing_ok=True)
        sync_dir(journal.parent)
    for parent in sorted(parents - {folder}):
        with suppress(OSError):
            parent.rmdir()  # an archive folder left empty by expand


def _digest(value: object, *, optional: bool) -> bool:
    return (optional and value is None) or (isinstance(value, str) and re.fullmatch(_DIGEST, value) is not None)
