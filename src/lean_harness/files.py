"""Reading and writing managed files: symlinks refused, writes atomic (temp, fsync, rename)."""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from pathlib import Path

from lean_harness.errors import LhError


def display(path: Path, root: Path) -> str:
    """The path as a user reads it: relative to the project root, with forward slashes."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def refuse_symlink(path: Path, root: Path) -> None:
    """Raise when a managed path, or a folder between it and the root, is a symbolic link."""
    current = path
    while True:
        if current.is_symlink():
            raise LhError(
                f"{display(current, root)} is a symbolic link; lean-harness only manages real files."
                " Replace the link with the file or folder itself"
            )
        if current in (root, current.parent):
            return
        try:
            current.relative_to(root)
        except ValueError:
            return
        current = current.parent


def read_text(path: Path, root: Path, *, keep_bom: bool = False) -> str:
    """A managed text file's content; an error naming the file when it is not UTF-8.

    A file lh splices a block into and writes back is read with `keep_bom`, so a byte-order mark
    the user's file starts with is written back with it."""
    refuse_symlink(path, root)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise LhError(
            f"{display(path, root)}:{line}: not valid UTF-8 (byte {error.start}); re-save the file as UTF-8"
        ) from None
    return text if keep_bom else text.removeprefix("\ufeff")


def write_atomic(path: Path, data: bytes, *, compare: bool = True, durable: bool = True) -> bool:
    """Write `data` to `path` through a synced temp file and a rename; False when already equal.

    Callers that know the content changed pass `compare=False` to skip re-reading the file;
    `durable=False` skips the syncs, for state that is only a hint (the hooks' bookkeeping).
    A symbolic link at `path` is replaced, never followed.
    """
    if compare:
        try:
            if not path.is_symlink() and path.read_bytes() == data:
                return False
        except (FileNotFoundError, IsADirectoryError):
            pass
    temp = stage(path, data, durable=durable)
    try:
        os.replace(temp, path)
    except BaseException:
        _unlink(temp)
        raise
    if durable:
        sync_dir(path.parent)
    return True


_OPEN_FLAGS = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0)


def open_existing(path: Path) -> int:
    """A descriptor of the existing regular file at `path`, open for reading and writing, never through a link."""
    fd = os.open(path, _OPEN_FLAGS)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, "not a regular file", str(path))
    return fd


def read_at(fd: int, offset: int, size: int) -> bytes:
    """Up to `size` bytes of an open file from `offset` (fewer at its end)."""
    os.lseek(fd, offset, os.SEEK_SET)
    parts = []
    while size > 0:
        part = os.read(fd, size)
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def write_at(fd: int, offset: int, data: bytes) -> None:
    """Write `data` into an open file at `offset` and sync it: the one in-place write (memory/journal.py)."""
    os.lseek(fd, offset, os.SEEK_SET)
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def stage(path: Path, data: bytes, *, durable: bool = True) -> Path:
    """A temp file beside `path` holding `data`, synced to disk, with the mode `path` has (or would get).

    Every durable write of lh goes through here: `write_atomic` renames it over its target, the
    journal renames several at once (memory/journal.py), the inbox links it to a new name.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        info = path.lstat()
        mode = info.st_mode & 0o7777 if stat.S_ISREG(info.st_mode) else new_file_mode()
    except FileNotFoundError:
        mode = new_file_mode()
    fd, temp = _new_temp(path)
    try:
        os.chmod(temp, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        _unlink(Path(temp))
        raise
    return Path(temp)


_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_TEMP_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NOINHERIT", 0)
)


def _new_temp(path: Path) -> tuple[int, str]:
    """A new file ".NAME.XXXXXXXX.tmp" beside `path`, open, private, as tempfile.mkstemp makes it.

    Made here because importing tempfile costs every write shutil, bz2, lzma and random.
    """
    for _ in range(100):
        part = "".join(_TEMP_CHARS[b % len(_TEMP_CHARS)] for b in os.urandom(8))
        temp = os.path.join(path.parent, f".{path.name}.{part}.tmp")
        try:
            return os.open(temp, _TEMP_FLAGS, 0o600), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temp file name", str(path.parent))


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


# write_atomic's temp files: "." + the file's name + 8 random characters (_new_temp) + ".tmp".
_TEMP_RE = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
STALE_TEMP_SECONDS = 300


def remove_stale_temps(folder: Path, older_than: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Delete temp files a killed writer left in `folder`; only old ones, so a live write keeps its own."""
    removed: list[Path] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return removed
    now = time.time()
    for name in names:
        if not _TEMP_RE.fullmatch(name):
            continue
        path = folder / name
        try:
            info = path.lstat()
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime > older_than:
                path.unlink()
                removed.append(path)
        except OSError:
            pass  # gone already, or not ours to delete
    return removed


def write_text(path: Path, text: str, *, compare: bool = True) -> bool:
    """Write UTF-8 text atomically; False when the file already held it."""
    return write_atomic(path, text.encode("utf-8"), compare=compare)


def with_block(text: str, block: str, start: str, end: str) -> str:
    """`text` with its managed block (from the line holding `start` to the one holding `end`)
    replaced by `block`, or `block` appended after a blank line; the text's line endings kept."""
    newline = "\r\n" if "\r\n" in text else "\n"
    unix = text.replace("\r\n", "\n")
    found = _block_span(unix, start, end)
    if found is not None:
        updated = unix[: found[0]] + block + unix[found[1] :]
    else:
        separator = "" if not unix or unix.endswith("\n\n") else ("\n" if unix.endswith("\n") else "\n\n")
        updated = unix + separator + block
    return updated.replace("\n", newline)


def without_block(text: str, start: str, end: str) -> str:
    """`text` with every managed block removed, undoing `with_block`: a block that ends the text
    takes the blank line `with_block` put before it; every other line is kept as it was."""
    newline = "\r\n" if "\r\n" in text else "\n"
    unix = text.replace("\r\n", "\n")
    while (found := _block_span(unix, start, end)) is not None:
        before, after = unix[: found[0]], unix[found[1] :]
        if not after and before.endswith("\n\n"):
            before = before[:-1]
        unix = before + after
    return unix.replace("\n", newline)


def _block_span(unix: str, start: str, end: str) -> tuple[int, int] | None:
    """Where the block runs in `unix` text: from the start of its first line past its last line's newline."""
    first = unix.find(start)
    last = unix.find(end, first + 1) if first >= 0 else -1
    if first < 0 or last < 0:
        return None
    first = unix.rfind("\n", 0, first) + 1
    stop = unix.find("\n", last)
    return first, len(unix) if stop < 0 else stop + 1


def new_file_mode() -> int:
    """The mode a new file gets under the current umask (mkstemp would give 0600)."""
    # os.umask can only be read by setting it; set it back at once.
    current = os.umask(0o022)
    os.umask(current)
    return 0o666 & ~current


def sync_dir(folder: Path) -> None:
    # A rename is durable only once its folder is synced; Windows has no folder handles to sync.
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
