"""All-or-nothing writes of several memory files: temp files, a journal, renames.

`commit` writes every new file to a synced temp file beside its target, then the journal
(atomically: it either exists whole or not at all), then renames each temp over its target and
deletes what is to be deleted, and last removes the journal. The journal's appearance is the
commit point: a process killed before it leaves the old files (and temp files that the next
write clears away); killed after it, the next lh command that takes the lock, reading or
writing, finishes the renames (`recover`), which are idempotent: a temp that is gone was
renamed already (adr/0012-compaction.md).

The journal lives in the git-ignored cache (`<cacheDir>/lh/journal`), never in the committed
tree, and it records the identity (device and inode) of the memory dir it was written for: a
journal that arrives with a checkout, a copy or an archive names another folder and is never
applied (adr/0015-one-entry-rule-set.md). A journal left in the memory dir by older versions
(`.lh-journal`) is never read; doctor reports it.

The journal is JSON: `{"version": 2, "folder": [device, inode], "replace": [[target, temp], ...],
"delete": [target, ...]}`, paths relative to the memory dir. Only names lh writes are accepted:
`NAME.md` in the memory dir or its `archive/` folder, import records `.imports/NAME.json`,
consumed-note markers `.pending/.consumed/SHA256`, and temp files beside them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.files import display, refuse_symlink, stage, sync_dir, write_atomic

JOURNAL_NAME = "journal"
LEGACY_NAME = ".lh-journal"
_TARGET_RE = re.compile(
    r"(?:(?:archive/)?[A-Za-z0-9][A-Za-z0-9._-]*\.md|\.imports/[A-Za-z0-9][A-Za-z0-9._-]*\.json"
    r"|\.pending/\.consumed/[0-9a-f]{64})"
)
_TEMP_RE = re.compile(
    r"(?:(?:archive/|\.imports/|\.pending/\.consumed/)?\.[A-Za-z0-9][A-Za-z0-9._-]*\.[a-z0-9_]{8}\.tmp)"
)


def commit(folder: Path, changes: Mapping[Path, bytes | None], journal: Path) -> None:
    """Replace each file with its bytes, or delete it (None): all of them, or none if interrupted.

    `journal` is where the commit is recorded until it is done: `<cacheDir>/lh/journal`.
    """
    replace: list[list[str]] = []
    delete: list[str] = []
    staged: list[Path] = []
    try:
        for path, data in sorted(changes.items()):
            name = path.relative_to(folder).as_posix()
            if data is None:
                delete.append(name)
                continue
            temp = stage(path, data)
            staged.append(temp)
            replace.append([name, temp.relative_to(folder).as_posix()])
        for parent in sorted({t.parent for t in staged}):
            sync_dir(parent)
        record = {"version": 2, "folder": _identity(folder), "replace": replace, "delete": delete}
        write_atomic(journal, json.dumps(record, indent=1).encode("utf-8"), compare=False)
        pairs = [(name, temp) for name, temp in replace]
    except BaseException:
        for temp in staged:
            _unlink(temp)
        raise
    _finish(folder, pairs, delete, journal)


def recover(folder: Path, journal: Path, root: Path) -> bool:
    """Finish the commit a killed process left half done, if any; True when there was one.

    A journal written for another folder (copied, committed, unpacked) is left alone: `stray`
    says so, for doctor.
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
    _finish(folder, [(name, temp) for name, temp in record["replace"]], list(record["delete"]), journal)
    return True


def stray(folder: Path, journal: Path) -> list[Path]:
    """Journals that will never be applied here: one in the memory dir, or one written for another folder."""
    found = [folder / LEGACY_NAME] if (folder / LEGACY_NAME).exists() else []
    try:
        record = _record(journal.read_bytes())
    except OSError:
        return found
    if record is not None and record["folder"] != _identity(folder):
        found.append(journal)
    return found


def _identity(folder: Path) -> list[int]:
    info = folder.stat()
    return [info.st_dev, info.st_ino]


def _record(data: bytes) -> dict[str, list] | None:  # type: ignore[type-arg]
    try:
        record = json.loads(data)
    except ValueError:
        return None
    return record if _valid(record) else None


def _finish(folder: Path, replace: list[tuple[str, str]], delete: list[str], journal: Path) -> None:
    parents: set[Path] = set()
    for name, temp in replace:
        try:
            os.replace(folder / temp, folder / name)
        except FileNotFoundError:
            if not (folder / name).exists():  # renamed already, unless someone deleted both
                raise LhError(f"{temp} and {name} are both missing; restore {name} from git history") from None
        parents.add((folder / name).parent)
    for name in delete:
        _unlink(folder / name)
        parents.add((folder / name).parent)
    for parent in sorted(parents):
        sync_dir(parent)
    _unlink(journal)
    sync_dir(journal.parent)
    for parent in sorted(parents - {folder}):
        try:
            parent.rmdir()  # an archive folder left empty by expand
        except OSError:
            pass


def _valid(record: object) -> bool:
    if not isinstance(record, dict) or record.get("version") != 2:
        return False
    identity = record.get("folder")
    if not (isinstance(identity, list) and len(identity) == 2 and all(type(n) is int for n in identity)):
        return False
    replace, delete = record.get("replace"), record.get("delete")
    if not isinstance(replace, list) or not isinstance(delete, list):
        return False
    for pair in replace:
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            return False
        name, temp = pair
        if not _TARGET_RE.fullmatch(name) or not _TEMP_RE.fullmatch(temp):
            return False
        if name.rpartition("/")[0] != temp.rpartition("/")[0]:
            return False
    return all(isinstance(n, str) and _TARGET_RE.fullmatch(n) for n in delete)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
