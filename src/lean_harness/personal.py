"""The personal scope as SessionStart shows it to its owner: one line per entry (adr/0040).

The personal shards live in `<memory dir>.local/`, which git ignores, so INDEX.md (committed,
shared) never lists them; the hook adds them for whoever's checkout holds them. Standard library
only, for the hooks (adr/0010): the shards are scanned for entry headers (memory/shard.py), not
parsed; the caller masks what it prints.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False  # typing is not loaded on a hook's path
if TYPE_CHECKING:
    from collections.abc import Collection

_HEADER = re.compile(r'<!-- lh:entry [^\n]*?\bid="([^"\n]+)"[^\n]*-->\n')
MAX_ENTRIES = 30


def section(memory_dir: str, shown: Collection[str] = ()) -> str:
    """`[SHARD/ID] first line` for each personal entry not `shown` already, under a heading; '' for none."""
    folder = memory_dir.rstrip("/\\") + ".local"
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".md"))
    except OSError:
        return ""
    lines: list[str] = []
    for name in names:
        path = os.path.join(folder, name)
        if os.path.islink(folder) or os.path.islink(path) or not os.path.isfile(path):
            continue  # never read through a link (files.py)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read().replace("\r\n", "\n")
        for match in _HEADER.finditer(text):
            if f"{name[:-3]}/{match.group(1)}" not in shown:
                lines.append(f"- [{name[:-3]}/{match.group(1)}] {text[match.end() :].split(chr(10), 1)[0]}")
    if not lines:
        return ""
    more = [f"- and {len(lines) - MAX_ENTRIES} more"] if len(lines) > MAX_ENTRIES else []
    heading = f"Personal memory (in {os.path.basename(folder)}/, which git ignores; yours only):"
    return "\n".join([heading, *lines[:MAX_ENTRIES], *more])
