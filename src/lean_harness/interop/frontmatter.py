"""A strict reader for the small YAML frontmatter memory files carry: one `key: value` per line.

A file with frontmatter starts with a `---` line and the block ends at the next `---` line.
Each line inside is blank, a `# comment`, or `key: value` where the value is plain, "double
quoted" (JSON escapes) or 'single quoted' (`''` is a quote). Everything else YAML allows
(nesting, lists, block scalars, anchors, flow collections, continued lines) is refused with the
line it is on, rather than read wrongly: the records are few and written by tools, and a
refusal names the fix (adr/0014-import-and-inbox.md says why there is no YAML dependency).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_KEY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?")
_UNSUPPORTED = {
    "[": "a flow list",
    "{": "a flow mapping",
    "|": "a block scalar",
    ">": "a block scalar",
    "&": "an anchor",
    "*": "an alias",
    "!": "a tag",
    "%": "a directive",
    "@": "a reserved character",
    "`": "a reserved character",
}


@dataclass(frozen=True)
class Frontmatter:
    """The fields of a frontmatter block, the body after it and the body's first line number."""

    fields: dict[str, str]
    body: str
    body_line: int
    problems: tuple[tuple[int, str], ...] = ()
    present: bool = True


def split(text: str) -> Frontmatter:
    """Read the frontmatter at the start of `text` (LF line endings); `present` is False without one."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return Frontmatter({}, text, 1, present=False)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    except StopIteration:
        return Frontmatter({}, text, 1, ((1, "the frontmatter opened here is not closed; add a --- line after it"),))
    fields: dict[str, str] = {}
    problems: list[tuple[int, str]] = []
    for number in range(1, end):
        line, at = lines[number], number + 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            problems.append((at, "an indented line (a nested or continued value) is not supported; use key: value"))
            continue
        match = _KEY_RE.fullmatch(line.rstrip())
        if match is None:
            problems.append((at, "expected key: value"))
            continue
        key, raw = match.group(1), (match.group(2) or "").strip()
        value, problem = _scalar(raw)
        if problem:
            problems.append((at, f"{key}: {problem}"))
        elif key in fields:
            problems.append((at, f"{key} is given twice"))
        else:
            fields[key] = value
    return Frontmatter(fields, "\n".join(lines[end + 1 :]), end + 2, tuple(problems))


def _scalar(raw: str) -> tuple[str, str | None]:
    if raw.startswith('"'):
        try:
            value = json.loads(raw)
        except ValueError:
            return "", "not a valid double-quoted string"
        return (value, None) if isinstance(value, str) else ("", "not a valid double-quoted string")
    if raw.startswith("'"):
        inner = raw[1:-1] if len(raw) > 1 and raw.endswith("'") else None
        if inner is None or "'" in inner.replace("''", ""):
            return "", "not a valid single-quoted string (a quote inside is written '')"
        return inner.replace("''", "'"), None
    if raw[:1] in _UNSUPPORTED:
        return "", f"{_UNSUPPORTED[raw[0]]} is not supported; quote the value or put it on one plain line"
    value = re.split(r"[ \t]#", raw, maxsplit=1)[0].rstrip()
    if ": " in value or value.endswith(":"):
        return "", "a plain value cannot hold ': '; put the value in double quotes"
    return value, None
