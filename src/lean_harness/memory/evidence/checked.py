"""The record of the last evidence check, `<cacheDir>/lh/evidence`, as plain lines (memory/evidence/stale.py
writes it; the format is in its docstring). Standard library only: a session start reads it to tell
whether any cited file changed since, and loads the evidence check only when one did.
"""

from __future__ import annotations

import os

from lean_harness.hookstate import Stat, read_lines, stat_of

Record = tuple[str, "Stat | None", list[tuple[str, str, str]]]  # path, stat, (status, anchor, now)
STATUSES = ("fresh", "moved", "changed", "missing")


def records(path: str | os.PathLike[str]) -> tuple[int, int, list[Record]] | None:
    """The record as written: when it was checked, the stale count, each cited file (its path as
    refs store it) and its anchors; None when there is none or it is not of this format."""
    lines = read_lines(os.fspath(path)) or []
    head = lines[0].split() if lines else []
    if len(head) != 4 or head[:2] != ["lh-evidence", "1"] or not (head[2] + head[3]).isdigit():
        return None
    found: list[Record] = []
    try:
        for line in lines[1:]:
            kind, _, rest = line.partition(" ")
            if kind == "f":
                size, mtime, inode, cited = rest.split(" ", 3)
                found.append((cited, (int(size), int(mtime), int(inode)), []))
            elif kind == "a" and found and found[-1][1] is not None:
                status, item, *now = rest.split(" ")
                if status in STATUSES:
                    found[-1][2].append((status, item, now[0] if now else ""))
            elif kind == "m":
                found.append((rest, None, []))
    except ValueError:
        return None
    return int(head[2]), int(head[3]), found


def unchanged(root: str, path: str | os.PathLike[str]) -> bool:
    """Whether every cited file stands as the last check found it (the same stat, or still
    missing), so none can check otherwise; False when that cannot be told without the check."""
    found = records(path)
    if found is None:
        return False
    for cited, stat, _ in found[2]:
        if "%" in cited:
            return False  # a quoted path: the evidence check decodes it
        now = stat_of(os.path.join(root, cited), follow_symlinks=True)
        if now != stat if stat is not None else now is not None:
            return False
    return True
