"""What the plugin's hooks remember between runs, written by the hooks and by lh's memory code.

Everything lives in `<cacheDir>/lh/hooks/`, in lines of `name size mtime_ns inode`, one per
Markdown file of the memory folder: `seen/<session>`, the files as the agent last saw them;
`written`, as lh last wrote them (not news to the agent); `index`, the files, the config and the
evidence check as lh last generated INDEX.md from them, then a line `shard id` per title it lists;
`handed/<session>`, lines of `shard/id key`, the notes handed over whole (recall.py). A record is a
hint; `<session>` is the session's `session_tag`, never its id. Only modules the interpreter loads
at start: a hook runs on every turn (adr/0010-hooks.md).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # importing typing alone would double a hook's import time
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    Place = str | os.PathLike[str]

Stat = tuple[int, int, int]
CONFIG_KEY = "lh.toml"  # the config's line in the `index` record; memory files all end in .md
EVIDENCE_KEY = "evidence"  # the last check of cited files (memory/stale.py): INDEX.md's stale count


def loads(text: str) -> object:
    """`json.loads(text)`, through the interpreter's own JSON scanner when it has one: importing the
    `json` package (and `re` with it) would take a third of a silent hook's time. ValueError as
    `json.loads` raises it; its error path may import `json` itself."""
    try:
        from _json import make_scanner
    except ImportError:
        import json

        return json.loads(text)
    scan = make_scanner(_Decoding())  # type: ignore[arg-type]  # the scanner reads only these attributes
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = scan(text, start)
    except StopIteration as stop:
        raise ValueError(f"no JSON value at character {stop.value}") from None
    if text[end:].strip(_SPACE):
        raise ValueError(f"extra data at character {end}")
    return value


_SPACE = " \t\n\r"  # JSON's white space
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _Decoding:
    """The settings `json.loads` gives its scanner: plain dicts, lists, ints and floats; NaN allowed."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, _CONSTANTS.__getitem__


def folder(cache_dir: Place) -> str:
    return os.path.join(os.fspath(cache_dir), "lh", "hooks")


def stat_key(found: os.stat_result) -> Stat:
    """A file's size, mtime and inode: the one key of every record of file states in lh."""
    return (found.st_size, found.st_mtime_ns, found.st_ino)


def stat_of(path: Place, *, follow_symlinks: bool = False) -> Stat | None:
    """The `stat_key` of a file, or None when it cannot be had."""
    try:
        return stat_key(os.stat(path, follow_symlinks=follow_symlinks))
    except OSError:
        return None


def scan(memory_dir: Place) -> dict[str, Stat]:
    """Every Markdown file in the memory folder with its size, mtime and inode."""
    found: dict[str, Stat] = {}
    try:
        entries = list(os.scandir(memory_dir))
    except OSError:
        return found
    for entry in entries:  # a file gone between the listing and its stat is left out
        if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False) and (stat := stat_of(entry.path)):
            found[entry.name] = stat
    return found


def read_lines(path: str) -> list[str] | None:
    """A record's lines, or None when there is none."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def load(path: str) -> dict[str, Stat] | None:
    """A record of stats, or None when there is none."""
    text = read_lines(path)
    parts = [line.rsplit(" ", 3) for line in text or ()]
    found = {p[0]: (int(p[1]), int(p[2]), int(p[3])) for p in parts if len(p) == 4 and all(map(str.isdigit, p[1:]))}
    return None if text is None else found


def save(path: str, stats: Mapping[str, Stat], root: Place, more: Sequence[str] = ()) -> None:
    """Replace a record of stats and `more` lines (see `save_lines`)."""
    save_lines(path, [f"{name} {s[0]} {s[1]} {s[2]}" for name, s in sorted(stats.items())] + list(more), root)


def save_lines(path: str, lines: list[str], root: Place) -> None:
    """Replace a record atomically, unsynced; skipped when a folder on the way from `root` is a link, and when
    it cannot be written (a read-only checkout): every record is a hint, and one missing costs a repeat."""
    from lean_harness.files import first_link, write_atomic  # as light as this module: os, stat, errno, time

    if first_link(os.path.dirname(path), root) is not None:
        return
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        write_atomic(path, "".join(f"{line}\n" for line in lines).encode("utf-8"), compare=False, durable=False)
    except OSError:
        pass


def session_tag(session: str) -> str:
    """What lh keeps of a session's id, never the id, which may hold anything (a credential): the CRC-32
    of its first 256 characters, computed here (importing zlib would cost a silent hook ten times more)."""
    crc = 0xFFFFFFFF
    for byte in session[:256].encode("utf-8", "replace"):
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return f"{crc ^ 0xFFFFFFFF:08x}"


def session_path(cache_dir: Place, kind: str, session: str) -> str:
    """The record `kind` (`seen`, `handed`) of one session, named by its `session_tag`."""
    return os.path.join(folder(cache_dir), kind, session_tag(session))


def prune(cache_dir: Place, days: int) -> None:
    """Remove the session records older than `days` (`seen`, `handed`), and those not named by a
    `session_tag` (an older lh named them by the id itself); what cannot be read or removed stays."""
    import time

    cutoff = time.time() - days * 86400
    for kind in ("seen", "handed"):
        records = os.path.join(folder(cache_dir), kind)
        for entry in list(os.scandir(records)) if os.path.isdir(records) else []:
            try:
                if len(entry.name) != 8 or entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
            except OSError:
                pass  # gone already, not ours, or a read-only checkout


def load_handed(path: str) -> dict[str, str]:
    """The entries a session was handed (`shard/id` to the key of the text), {} when none."""
    return dict(line.split(" ", 1) for line in read_lines(path) or () if line.count(" ") == 1)


def generated(cache_dir: Place, config_path: Place, scanned: Mapping[str, Stat]) -> dict[str, Stat]:
    """The stats the `index` record keeps: every memory file (`scanned`), the config and the evidence check."""
    found = dict(scanned)
    for key, path in ((CONFIG_KEY, config_path), (EVIDENCE_KEY, os.path.join(cache_dir, "lh", "evidence"))):
        if (stat := stat_of(path)) is not None:
            found[key] = stat
    return found


def record_index(memory_dir: Place, cache_dir: Place, config_path: Place, listed: Sequence[tuple[str, str]]) -> None:
    """After lh wrote INDEX.md, or found it as it generates it: remember what it was made from, and what it lists."""
    root = os.path.dirname(os.path.dirname(os.fspath(config_path)))  # the config is <root>/.agents/lh.toml
    more = [f"{shard} {key}" for shard, key in listed]  # two words: never read as a stat line
    save(os.path.join(folder(cache_dir), "index"), generated(cache_dir, config_path, scan(memory_dir)), root, more)


def listed(cache_dir: Place) -> list[tuple[str, str]]:
    """The (shard, id) of each title INDEX.md listed when lh last generated it (`record_index`)."""
    parts = (line.split(" ") for line in read_lines(os.path.join(folder(cache_dir), "index")) or ())
    return [(p[0], p[1]) for p in parts if len(p) == 2]


def differing(before: Mapping[str, Stat], now: Mapping[str, Stat]) -> list[str]:
    """The files whose stat is not the same in `before` and `now` (or that only one holds), by name."""
    return [name for name in sorted(set(before) | set(now)) if before.get(name) != now.get(name)]


class lh_writes:
    """Around an `lh` write: afterwards, remember the memory files it changed as lh's own."""

    def __init__(self, memory_dir: Place, cache_dir: Place, root: Place) -> None:
        self.memory_dir = os.fspath(memory_dir)
        self.root = root
        self.path = os.path.join(folder(cache_dir), "written")
        self.before: dict[str, Stat] = {}

    def __enter__(self) -> None:
        self.before = scan(self.memory_dir)

    def __exit__(self, *failure: object) -> None:
        now = scan(self.memory_dir)
        changed = {name: now[name] for name in differing(self.before, now) if name in now}
        if changed:  # an unwritable cache costs the agent a spurious notice, nothing more
            save(self.path, {**(load(self.path) or {}), **changed}, self.root)


REVIEW_NAME = "review"  # how many findings the last `lh memory review` had, for the session start


def record_review(cache_dir: str | os.PathLike[str], findings: int, root: str | os.PathLike[str]) -> None:
    """Remember how many findings a review had (memory/intake/review.py); a hint, as every record."""
    save(os.path.join(folder(cache_dir), REVIEW_NAME), {"findings": (findings, 0, 0)}, root)


def age(stamp: str) -> float:
    """Seconds since a UTC time written 20261201T101500 (a pending note's name starts so), 0 if it is not one."""
    import time

    try:
        return max(0.0, time.time() - time.mktime(time.strptime(stamp[:15], "%Y%m%dT%H%M%S")) + time.timezone)
    except ValueError:
        return 0.0


def said_age(seconds: float) -> str:
    """An age in its largest whole unit: "3 days", "1 hour", "less than a minute"."""
    unit, size = next(((u, s) for u, s in (("day", 86400), ("hour", 3600), ("minute", 60)) if seconds >= s), ("", 0))
    return f"{int(seconds // size)} {unit}{'s' if seconds >= 2 * size else ''}" if size else "less than a minute"


def pending_notes(memory_dir: str, strict: bool = False) -> list[str]:
    """The names of the notes waiting in the inbox, in the order they were written: its Markdown
    files not named with a leading dot. A linked inbox holds none: lh reads only real folders (adr/0030).
    An inbox that cannot be read holds none for a hook, and raises OSError when `strict` (lh says why)."""
    inbox = os.path.join(memory_dir, ".pending")
    try:
        names = [] if os.path.islink(inbox) else os.listdir(inbox)
    except OSError:
        if strict:
            raise
        return []
    return sorted(n for n in names if n.endswith(".md") and n[0] != "." and os.path.isfile(os.path.join(inbox, n)))


def pending_line(memory_dir: str, cache_dir: str) -> str:
    """The session start's line on the inbox: how many notes wait, the oldest's age and the last
    review's findings; "" when none wait. Read from the folder listing and one record, nothing parsed."""
    names = pending_notes(memory_dir)
    if not names:
        return ""
    found = (load(os.path.join(folder(cache_dir), REVIEW_NAME)) or {}).get("findings")
    review = f"; the last review found {found[0]} to look at" if found else ""
    notes = "1 pending note" if len(names) == 1 else f"{len(names)} pending notes"
    return (
        f"lean-harness: {notes}, the oldest {said_age(age(names[0]))} old{review}"
        ' ("lh memory review"; consolidate when the user asks)'
    )
