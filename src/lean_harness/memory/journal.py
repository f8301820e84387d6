"""All-or-nothing writes of several memory files: temp files, a journal, renames.

`commit` writes every new file to a synced temp file beside its target, then the journal
`<memory dir>/.lh-journal` (atomically: it either exists whole or not at all), then renames
each temp over its target and deletes what is to be deleted, and last removes the journal.
The journal's appearance is the commit point: a process killed before it leaves the old files
(and temp files that the next write clears away); killed after it, the next lh command that
takes the lock, reading or writing, finishes the renames (`recover`), which are idempotent:
a temp that is gone was renamed already (adr/0012-compaction.md).

The journal is JSON: `{"version": 1, "replace": [[target, temp], ...], "delete": [target, ...]}`,
paths relative to the memory dir. Only names lh writes are accepted: `NAME.md` in the memory
dir or its `archive/` folder, and temp files beside them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.files import new_file_mode, sync_dir, write_atomic

JOURNAL_NAME = ".lh-journal"
_TARGET_RE = re.compile(r"(?:archive/)?[A-Za-z0-9][A-Za-z0-9._-]*\.md")
_TEMP_RE = re.compile(r"(?:archive/)?\.[A-Za-z0-9][A-Za-z0-9._-]*\.md\.[a-z0-9_]{8}\.tmp")


def commit(folder: Path, changes: Mapping[Path, bytes | None]) -> None:
    """Replace each file with its bytes, or delete it (None): all of them, or none if interrupted."""
    replace: list[list[str]] = []
    delete: list[str] = []
    staged: list[Path] = []
    try:
        for path, data in sorted(changes.items()):
            name = path.relative_to(folder).as_posix()
            if data is None:
                delete.append(name)
                continue
            temp = _stage(path, data)
            staged.append(temp)
            replace.append([name, temp.relative_to(folder).as_posix()])
        for parent in sorted({t.parent for t in staged}):
            sync_dir(parent)
        record = {"version": 1, "replace": replace, "delete": delete}
        write_atomic(folder / JOURNAL_NAME, json.dumps(record, indent=1).encode("utf-8"), compare=False)
        pairs = [(name, temp) for name, temp in replace]
    except BaseException:
        for temp in staged:
            _unlink(temp)
        raise
    _finish(folder, pairs, delete)


def recover(folder: Path, shown: str) -> bool:
    """Finish the commit a killed process left half done, if any; True when there was one.

    `shown` is the memory dir as the user reads it, for the message about a broken journal.
    """
    path = folder / JOURNAL_NAME
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    try:
        record = json.loads(data)
        valid = _valid(record)
    except ValueError:
        valid = False
    if not valid:
        raise LhError(
            f"{shown}/{JOURNAL_NAME} is not a journal lh wrote; a compaction may have been interrupted."
            " Check the memory files with git diff, then delete the journal"
        )
    _finish(folder, [(name, temp) for name, temp in record["replace"]], list(record["delete"]))
    return True


def _finish(folder: Path, replace: list[tuple[str, str]], delete: list[str]) -> None:
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
    _unlink(folder / JOURNAL_NAME)
    sync_dir(folder)
    for parent in sorted(parents - {folder}):
        try:
            parent.rmdir()  # an archive folder left empty by expand
        except OSError:
            pass


def _valid(record: object) -> bool:
    if not isinstance(record, dict) or record.get("version") != 1:
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


def _stage(path: Path, data: bytes) -> Path:
    """A synced temp file beside `path` holding `data`, with the mode `path` has (or would get)."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = new_file_mode()
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(temp, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        _unlink(Path(temp))
        raise
    return Path(temp)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
