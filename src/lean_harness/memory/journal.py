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

A shard that only gains entries at its end is appended to in place, never rewritten
(adr/0022-appends-in-place.md). The journal records each append: the shard, its length before
it, the digest of those bytes (memory/summary.py: `shard_digest`) and the bytes appended. After
the journal is written the bytes are written at that length and synced. Recovery reads the
shard: when its first `length` bytes still have the recorded digest and what follows them is
a beginning of the appended bytes (nothing, a torn part, or all of them), it writes the rest; a
shard that changed in between (an edit, another branch) is left alone and reported, since a
torn entry may be left at its end.

The journal is JSON: `{"version": 3, "folder": [device, inode], "replace": [[target, temp], ...],
"delete": [target, ...], "append": [[shard, length, digest, text], ...]}`, paths relative to the
memory dir (version 2 has no appends). Only names lh writes are accepted: `NAME.md` in the memory
dir or its `archive/` folder, import records `.imports/NAME.json`, consumed-note markers
`.pending/.consumed/SHA256`, and temp files beside them; appends go to shards (`NAME.md`) only.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.files import display, open_existing, read_at, refuse_symlink, stage, sync_dir, write_at, write_atomic

JOURNAL_NAME = "journal"
LEGACY_NAME = ".lh-journal"
# Checked only when a journal is read back (recovery), so no write compiles them.
_TARGET = (
    r"(?:(?:archive/)?[A-Za-z0-9][A-Za-z0-9._-]*\.md|\.imports/[A-Za-z0-9][A-Za-z0-9._-]*\.json"
    r"|\.pending/\.consumed/[0-9a-f]{64})"
)
_SHARD = r"[A-Za-z0-9][A-Za-z0-9._-]*\.md"
_DIGEST = r"[0-9a-f]{64}"
_TEMP = r"(?:(?:archive/|\.imports/|\.pending/\.consumed/)?\.[A-Za-z0-9][A-Za-z0-9._-]*\.[a-z0-9_]{8}\.tmp)"


class Append:
    """Bytes to add at the end of a shard of `length` bytes whose digest is `digest`."""

    __slots__ = ("data", "digest", "length")

    def __init__(self, length: int, digest: str, data: bytes) -> None:
        self.length, self.digest, self.data = length, digest, data


def commit(
    folder: Path,
    changes: Mapping[Path, bytes | None],
    journal: Path,
    appends: Mapping[Path, Append] | None = None,
) -> None:
    """Replace each file with its bytes, or delete it (None), and append to shards: all, or none if interrupted.

    `journal` is where the commit is recorded until it is done: `<cacheDir>/lh/journal`. A shard
    to append to must be `length` bytes long as the commit starts; otherwise nothing is written.
    """
    replace: list[list[str]] = []
    delete: list[str] = []
    staged: list[Path] = []
    opened: dict[str, tuple[int, Append]] = {}
    try:
        for path, append in sorted((appends or {}).items()):
            name = path.relative_to(folder).as_posix()
            fd = open_existing(path)
            opened[name] = (fd, append)
            if os.fstat(fd).st_size != append.length:
                raise LhError(
                    f"{name} in the memory dir changed while lh wrote it; nothing was written. Run the command again"
                )
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
        record: dict[str, object] = {"version": 2, "folder": _identity(folder), "replace": replace, "delete": delete}
        if opened:
            record["version"] = 3
            record["append"] = [[n, a.length, a.digest, a.data.decode("utf-8")] for n, (_, a) in opened.items()]
        write_atomic(journal, json.dumps(record, indent=1).encode("utf-8"), compare=False)
        pairs = [(name, temp) for name, temp in replace]
    except BaseException:
        for temp in staged:
            _unlink(temp)
        for fd, _ in opened.values():
            os.close(fd)
        raise
    try:
        for fd, append in opened.values():
            write_at(fd, append.length, append.data)  # the length was checked under the lock, before the journal
    finally:
        for fd, _ in opened.values():
            os.close(fd)
    _finish(folder, pairs, delete, journal, [])


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
    appends = [
        (str(n), Append(int(length), str(digest), str(text).encode("utf-8")))
        for n, length, digest, text in record.get("append", [])
    ]
    _finish(folder, [(name, temp) for name, temp in record["replace"]], list(record["delete"]), journal, appends, root)
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


def _finish(
    folder: Path,
    replace: list[tuple[str, str]],
    delete: list[str],
    journal: Path,
    appends: list[tuple[str, Append]],
    root: Path | None = None,
) -> None:
    for name, append in appends:
        _complete(folder / name, append, journal, root or folder)
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


def _complete(path: Path, append: Append, journal: Path, root: Path) -> None:
    """Finish an append a killed process began: write what is missing of it, or leave a shard that changed.

    Recovery only: it reads the whole shard to check the bytes before the append.
    """
    from lean_harness.memory.summary import shard_digest

    refuse_symlink(path, root)
    try:
        fd = open_existing(path)
    except FileNotFoundError:
        fd = None
    if fd is not None:
        try:
            data = read_at(fd, 0, os.fstat(fd).st_size)
            head, tail = data[: append.length], data[append.length :]
            if len(head) == append.length and shard_digest(head) == append.digest:
                if tail.startswith(append.data):
                    return  # all of it was written before the kill
                if append.data.startswith(tail):
                    write_at(fd, len(data), append.data[len(tail) :])
                    return
        finally:
            os.close(fd)
    raise LhError(
        f"{display(journal, root)} records an entry being added to {display(path, root)} when lh was stopped,"
        " but the file changed since (an edit or another branch); its end may hold part of that entry:"
        f" check it (git diff {display(path, root)}), then delete {display(journal, root)}"
    )


def _valid(record: object) -> bool:
    if not isinstance(record, dict) or record.get("version") not in (2, 3):
        return False
    appends = record.get("append", [])
    if (record.get("version") == 2 and "append" in record) or not isinstance(appends, list):
        return False
    for item in appends:
        if not (isinstance(item, list) and len(item) == 4):
            return False
        name, length, digest, text = item
        if not (isinstance(name, str) and re.fullmatch(_SHARD, name) and type(length) is int and length >= 0):
            return False
        if not (isinstance(digest, str) and re.fullmatch(_DIGEST, digest) and isinstance(text, str)):
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
        if not re.fullmatch(_TARGET, name) or not re.fullmatch(_TEMP, temp):
            return False
        if name.rpartition("/")[0] != temp.rpartition("/")[0]:
            return False
    return all(isinstance(n, str) and re.fullmatch(_TARGET, n) for n in delete)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
