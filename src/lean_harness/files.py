"""Reading and writing managed files: symlinks refused, writes atomic (one temp-file scheme, fsync, rename)."""

from __future__ import annotations

import errno
import os
import stat
import time

TYPE_CHECKING = False  # `errors` compiles patterns: the hooks' writes import this module without it
if TYPE_CHECKING:
    from lean_harness.errors import LhError

TYPE_CHECKING = False  # pathlib imports re: the hooks write through here and load neither (adr/0010)
if TYPE_CHECKING:
    from pathlib import Path

    StrPath = str | os.PathLike[str]


def display(path: Path, root: Path) -> str:
    """The path as a user reads it: relative to the project root, with forward slashes."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def refuse_symlink(path: Path, root: Path) -> None:
    """Raise when a managed path, or a folder between it and the root, is a symbolic link."""
    for current in (path, *path.parents):
        if current.is_symlink():
            raise _linked(current, root)
        if current == root or not current.is_relative_to(root):
            return


def _linked(path: Path, root: Path) -> LhError:
    from lean_harness.errors import LhError

    return LhError(
        f"{display(path, root)} is a symbolic link; lean-harness only manages real files."
        " Replace the link with the file or folder itself"
    )


def first_link(path: StrPath, root: StrPath) -> str | None:
    """The first symbolic link on the way from `root` (not itself) down to `path` (itself included), or None."""
    top = os.fspath(root)
    way = os.path.relpath(path, top)
    if way in (os.curdir, os.pardir) or way.startswith(os.pardir + os.sep):
        return None  # not below the root: not a path lh manages
    current = top
    for part in way.split(os.sep):
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return current
        except (FileNotFoundError, NotADirectoryError):
            return None  # nothing further down exists yet: lh makes it
    return None


def cache_link(cache: StrPath, root: StrPath) -> str | None:
    """The first link on the way to `cache`, or below it anywhere but to a regular file, or None.

    Every cache write replaces a link to a file or refuses it; a folder link would take every write.
    """
    found = first_link(cache, root)
    pending = [] if found else [os.fspath(cache)]
    while pending and found is None:
        try:
            entries = sorted(os.scandir(pending.pop()), key=lambda entry: entry.name)
        except (FileNotFoundError, NotADirectoryError):
            continue  # not made yet
        for entry in entries:
            if entry.is_symlink():
                if not os.path.isfile(entry.path):
                    found = entry.path
                    break
            elif entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return found


def refuse_cache_links(cache: Path, root: Path) -> None:
    """Raise, before any cache write, when a symbolic link would send one out of the project (`cache_link`)."""
    found = cache_link(cache, root)
    if found is not None:
        raise _linked(type(cache)(found), root)


def read_text(path: Path, root: Path, *, keep_bom: bool = False, data: bytes | None = None) -> str:
    """A managed text file's content (with its byte-order mark when `keep_bom`), or `data`'s; an error unless UTF-8."""
    refuse_symlink(path, root)
    data = path.read_bytes() if data is None else data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        from lean_harness.errors import LhError

        line = data[: error.start].count(b"\n") + 1
        raise LhError(
            f"{display(path, root)}:{line}: not valid UTF-8 (byte {error.start}); re-save the file as UTF-8"
        ) from None
    return text if keep_bom else text.removeprefix("\ufeff")


def write_atomic(path: StrPath, data: bytes, *, compare: bool = True, durable: bool = True) -> bool:
    """Write `data` to `path` through a synced temp file and a rename (a link there is replaced); False when equal.

    `durable=False` skips the syncs, for state that is only a hint (the hooks' bookkeeping).
    """
    if compare:
        try:
            if not os.path.islink(path):
                with open(path, "rb") as handle:
                    if handle.read() == data:
                        return False
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            pass
    if os.path.isdir(path) and not os.path.islink(path):  # named as itself, not as the temp file
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    temp = stage(path, data, durable=durable)
    try:
        os.replace(temp, path)
    except BaseException:
        _unlink(temp)
        raise
    if durable:
        sync_dir(os.path.dirname(path) or ".")
    return True


def stage(path: StrPath, data: bytes, *, durable: bool = True, mode: int | None = None) -> str:
    """A temp file beside `path` holding `data`, synced, with the mode `path` has (or would get).

    Every atomic write makes its temp file here, so `remove_stale_temps` sweeps what any killed writer left.
    """
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    if mode is None:
        try:
            info = os.lstat(path)
            mode = info.st_mode & 0o7777 if stat.S_ISREG(info.st_mode) else new_file_mode()
        except FileNotFoundError:
            mode = new_file_mode()
    fd, temp = _new_temp(folder, os.path.basename(path))
    try:
        os.chmod(temp, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        _unlink(temp)
        raise
    return temp


_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_TEMP_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NOINHERIT", 0)
)


def _new_temp(folder: str, name: str) -> tuple[int, str]:
    """A new private file ".NAME.XXXXXXXX.tmp" in `folder`, open: tempfile's import costs every write too much."""
    for _ in range(100):
        part = "".join(_TEMP_CHARS[b % len(_TEMP_CHARS)] for b in os.urandom(8))
        temp = os.path.join(folder, f".{name}.{part}.tmp")
        try:
            return os.open(temp, _TEMP_FLAGS, 0o600), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temp file name", folder)


def is_temp(name: str) -> bool:
    """Whether a file name is one `stage` makes: "." + a name + "." + 8 characters of `_TEMP_CHARS` + ".tmp"."""
    part = name[-12:-4]
    return (
        len(name) > 14
        and name.startswith(".")
        and name.endswith(".tmp")
        and name[-13] == "."
        and all(c in _TEMP_CHARS for c in part)
    )


def _unlink(path: StrPath) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


STALE_TEMP_SECONDS = 300


def remove_stale_temps(folder: Path, older_than: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Delete old temp files a killed writer left in or below `folder` (a live write keeps its own)."""
    removed: list[Path] = []
    now = time.time()
    for parent, folders, names in os.walk(folder):  # links to folders are listed, never entered
        folders.sort()
        for name in sorted(names):
            if not is_temp(name):
                continue
            path = folder / os.path.relpath(os.path.join(parent, name), folder)
            try:
                info = path.lstat()
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime > older_than:
                    path.unlink()
                    removed.append(path)
            except OSError:
                pass  # gone already, or not ours to delete
    return removed


def write_text(path: Path, text: str) -> bool:
    """Write UTF-8 text atomically; False when the file already held it."""
    return write_atomic(path, text.encode("utf-8"))


def with_block(text: str, block: str, start: str, end: str) -> str:
    """`text` with its managed block (lines `start` to `end`) replaced by `block`, or it appended after a blank line."""
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
    """`text` with every managed block removed, undoing `with_block` (the blank line before a last block too)."""
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
    """The mode a new file gets under the current umask (os.umask is read by setting it back at once)."""
    current = os.umask(0o022)
    os.umask(current)
    return 0o666 & ~current


def sync_dir(folder: StrPath) -> None:
    # A rename is durable only once its folder is synced; Windows has no folder handles to sync.
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
