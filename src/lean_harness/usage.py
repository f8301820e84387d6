"""The usage record: which memory entries reached the agent, and when (adr/0038-usage-record.md).

`.agents/events.ndjson`, git-ignored, this machine's own. One JSON line per event and shard:
`{"t":"2026-12-02T01:55:50Z","kind":"query","session":"1c291ca3","query":"3f9a0c2e8b7d6a51",
"shard":"failures","ids":["a1","b2"]}`: never a query's or an entry's text, only a hash of the
query and a tag of the session. `kind` is `get`, `query`, `session-start` (the titles INDEX.md
lists: counted as `listed`, not as uses) or a hook's name for a note it hands over; an event's
later lines carry `"more":1`. Each line, under LINE_BYTES, is one write on an O_APPEND descriptor
held under a shared flock. Past LIMIT bytes, the file is folded under an exclusive flock into
`total` lines per entry and a `sessions` line, replaced atomically. Standard library only.
"""

from __future__ import annotations

import os
import time

from lean_harness import hookstate, locations

try:
    import fcntl
except ImportError:  # Windows: appends stay whole, and a fold may lose the lines of its moment
    fcntl = None  # type: ignore[assignment]

TYPE_CHECKING = False  # importing typing alone would double a hook's import time
if TYPE_CHECKING:
    from collections.abc import Iterable

PATH = ".agents/events.ndjson"
LIMIT = 256 * 1024
LINE_BYTES = 512
LISTED = "session-start"
_MORE = ',"more":1'  # on an event's second and later lines
# No link followed; a FIFO in the record's place neither blocks a reader nor a writer.
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_FLAGS = _READ & ~os.O_RDONLY | os.O_WRONLY | os.O_APPEND | os.O_CREAT

Use = tuple[int, int, str]  # uses, listed, last use ("" when none)


def record(
    root: str | os.PathLike[str],
    kind: str,
    entries: Iterable[tuple[str, str]],
    session: str | None = None,
    query: str | None = None,
) -> None:
    """Append one event: `entries` as (shard, id) pairs; never raises, writes nothing when turned off."""
    from lean_harness.files import first_link

    path = os.path.join(root, PATH)
    try:
        cache_dir = _recording(os.path.join(root, locations.CONFIG_PATH))
        if cache_dir is None or first_link(path, root) is not None:
            return
        head = f'{{"t":"{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}","kind":"{kind}"'
        if session:
            head += f',"session":"{hookstate.session_tag(session)}"'
        if query is not None:
            import hashlib

            head += f',"query":"{hashlib.sha256(query.encode("utf-8", "replace")).hexdigest()[:16]}"'
        lines: list[str] = []
        pairs = list(entries)  # ids and shard names hold no character JSON escapes (memory/shard.py)
        for shard in dict.fromkeys(s for s, _ in pairs):
            keys = list(dict.fromkeys(k for s, k in pairs if s == shard))
            while keys:
                line = f'{head}{_MORE if lines else ""},"shard":"{shard}","ids":["{keys.pop(0)}"'
                while keys and len(line) + len(keys[0]) + 8 < LINE_BYTES:
                    line += f',"{keys.pop(0)}"'
                lines.append(line + "]")
        for line in lines or [head]:
            _append(path, (line + "}\n").encode("utf-8"), os.path.join(root, cache_dir, "lh"))
    except (OSError, ValueError):
        pass  # a hint: an unwritable record costs a count, never a command


_read_configs: dict[str, tuple[object, str | None]] = {}  # config path: its stat key, and `_recording`


def _recording(config: str) -> str | None:
    """The cache folder when the config turns the record on, else None; read once a process while
    the config's stat stays the same."""
    from lean_harness.hookstate import stat_of

    stat = stat_of(config, follow_symlinks=True)
    if stat is None or _read_configs.get(config, (None,))[0] != stat:
        with open(config, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        _read_configs[config] = (stat, locations.of_text(text)[1] if locations.records_usage(text) else None)
    return _read_configs[config][1]


def _append(path: str, data: bytes, spare: str) -> None:
    """One write of one line, on the file now at `path` (not one a fold replaced meanwhile)."""
    for _ in range(100):  # each turn, a fold replaced the file: bounded, as folds are
        fd = os.open(path, _FLAGS, 0o600)
        try:
            if fcntl:
                fcntl.flock(fd, fcntl.LOCK_SH)
            if os.fstat(fd).st_ino != os.lstat(path).st_ino:
                continue  # a fold replaced the file while this writer waited
            os.write(fd, data)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > LIMIT:
            fold(path, spare)
        return


def fold(path: str, spare: str) -> None:
    """Replace the events at `path` with per-entry totals, under an exclusive lock; skipped when another
    holds it. The new file is made in the folder `spare` of the cache (git ignores it, so a killed fold
    leaves nothing git lists), never through a link."""
    from lean_harness.files import first_link, stage

    if first_link(spare, os.path.dirname(os.path.dirname(path))) is not None:
        return
    fd = os.open(path, _READ)
    try:
        try:
            if fcntl:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another writer folds it now
        if os.fstat(fd).st_ino != os.lstat(path).st_ino:
            return
        with os.fdopen(os.dup(fd), "rb") as handle:
            totals, sessions = read_text(handle.read().decode("utf-8", "replace"))
        # The entries used last are kept: at most one per 400 bytes of LIMIT, half of it (a line is under 200).
        kept = sorted(totals.items(), key=lambda item: (item[1][2], item[1][0]), reverse=True)[: LIMIT // 400]
        lines = [f'{{"kind":"sessions","n":{sessions}}}\n']
        lines += [
            f'{{"kind":"total","shard":"{shard}","id":"{key}","uses":{uses},"listed":{listed},"last":"{last}"}}\n'
            for (shard, key), (uses, listed, last) in kept
        ]
        temp = stage(os.path.join(spare, "events.ndjson"), "".join(lines).encode(), durable=False, mode=0o600)
        try:
            os.replace(temp, path)  # one rename, from the cache into place
        except OSError:
            os.unlink(temp)
            raise
    finally:
        os.close(fd)


def last_used(root: str | os.PathLike[str]) -> dict[tuple[str, str], str] | None:
    """(shard, id) -> the last use of each entry ever used, for compaction; None without a readable record."""
    used, sessions, _ = counted(root)  # an unreadable record counts nothing
    return {key: last for key, (uses, _, last) in used.items() if uses} if used or sessions else None


def counted(root: str | os.PathLike[str]) -> tuple[dict[tuple[str, str], Use], int, str]:
    """Each used or listed entry's (uses, listed, last use) by (shard, id), the sessions started, and
    why the record cannot be read ("" when it reads or there is none; nothing is counted then)."""
    from lean_harness.files import first_link

    path = os.path.join(os.fspath(root), PATH)
    link = first_link(path, root)
    if link is not None:
        return {}, 0, f"{PATH} cannot be read ({os.path.relpath(link, root)} is a symbolic link)"
    try:
        with os.fdopen(os.open(path, _READ), "rb") as handle:
            return (*read_text(handle.read().decode("utf-8")), "")
    except FileNotFoundError:
        return {}, 0, ""
    except (OSError, ValueError) as error:
        return {}, 0, f"{PATH} cannot be read ({error})"


def read_text(text: str) -> tuple[dict[tuple[str, str], Use], int]:
    """The totals of a record's text (`counted`); lines that do not read as an event or a total are skipped."""
    import json

    totals: dict[tuple[str, str], Use] = {}
    sessions = 0
    for line in text.splitlines():
        try:
            item = json.loads(line)
            kind = item["kind"]
            if kind == "sessions":
                sessions += int(item["n"])
                continue
            if kind == "total":
                pairs = [(item["shard"], item["id"], int(item["uses"]), int(item["listed"]), str(item["last"]))]
            else:
                listed = kind == LISTED
                sessions += listed and "more" not in item
                when = "" if listed else str(item["t"])
                pairs = [(item["shard"], key, int(not listed), int(listed), when) for key in item.get("ids", [])]
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        for shard, key, uses, listed, last in pairs:
            if type(shard) is str and type(key) is str:
                old = totals.get((shard, key), (0, 0, ""))
                totals[shard, key] = (old[0] + uses, old[1] + listed, max(old[2], last))
    return totals, sessions
