"""The memory-md format: any folder of Markdown memory files, as agents write them (adr/0014).

A file may open with frontmatter (after HTML comments, which are dropped) giving `name` or
`title`, `description`, `type` and the first of TIMES that reads as a time, at the top level or
inside `metadata:`; other keys are named in one warning. The description (else the name) is the
entry's first line and the body the rest; a file without frontmatter is its own text, titled by
its file name unless it opens with a heading. Types go to shards by TYPES (`--map TYPE=SHARD`).
A MEMORY.md or index.md at any depth, and a file over LONG bytes without frontmatter, is read by
its sections, less the lines that only link to files imported themselves. The id comes from the
name, else the path (records.key_from); files whose names give one id each get a hash of their
path appended.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from lean_harness import markdown
from lean_harness.memory.intake.formats import frontmatter
from lean_harness.memory.intake.formats.records import Reading, Record, key_from, read_source_text, utc_time

INDEXES = ("memory.md", "index.md")  # at any depth: an index whose own prose is read by sections
LONG = 32 * 1024  # a file this long is a log of many memories (Codex's raw_memories.md): read by sections
# Types as agents write them, lower-cased, to shards; `user` is the user's own (adr/0040).
TYPES = {
    **{"user": "personal", "feedback": "corrections", "project": "seed", "reference": "seed"},
    **{"decision": "conventions", "convention": "conventions", "context": "seed", "technical": "insights"},
    **{"handoff": "insights", "investigation": "insights", "proposal": "insights", "specification": "seed"},
    "architecture": "seed",
}
FIELDS = ("name", "title", "description", "type")
TIMES = ("created", "date", "modified", "updated")  # the first that reads as a time dates the entry
_LINK_RE = re.compile(r"\]\(<?([^)>\s]+)>?\)")
_LINK_ITEM_RE = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+\[[^\]]*\]\([^)]*\)[^\n]*")


@dataclass(frozen=True)
class _Found:
    record: Record
    key: str | None
    path: str


def read(folder: Path, shown: str, reading: Reading) -> None:
    """Add the memories in `folder` (shown as `shown`) to `reading`."""
    files, skipped = _files(folder)
    relative = {path.relative_to(folder).as_posix() for path in files}
    found: list[_Found] = []
    ignored: dict[str, list[str]] = defaultdict(list)
    for path in files:
        name = path.relative_to(folder).as_posix()
        if path.name.lower() in INDEXES or (path.stat().st_size > LONG and path.read_bytes()[:3] != b"---"):
            text = read_source_text(path, f"{shown}/{name}", reading, name)
            found += _sections(text or "", name, relative, shown, reading)
            continue
        item = _memory(path, name, f"{shown}/{name}", reading, ignored)
        if item is not None:
            found.append(item)
    _assign_ids(found, reading)
    if skipped:
        reading.warnings.append(f"{shown}: not Markdown memory files, not imported: {_some(skipped)}")
    if ignored:
        named = {key: paths[0] if len(paths) == 1 else f"{len(paths)} files" for key, paths in ignored.items()}
        keys = "; ".join(f"{key} ({files})" for key, files in sorted(named.items()))
        reading.warnings.append(f"{shown}: frontmatter keys not imported: {keys}")


def _some(items: list[str]) -> str:
    """The first few of a list, and how many more."""
    return ", ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def _files(folder: Path) -> tuple[list[Path], list[str]]:
    """The Markdown files under `folder` (hidden ones and links out of it left out), and the other entries skipped."""
    files: list[Path] = []
    skipped: list[str] = []
    inside = folder.resolve()
    for path in sorted(folder.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            continue
        try:  # a symbolic link out of the folder, or one on the way there
            outside = not path.resolve().is_relative_to(inside)
        except (OSError, RuntimeError):
            outside = True  # a link loop: nothing to read
        name = path.relative_to(folder).as_posix()
        hidden = any(part.startswith(".") for part in name.split("/"))
        if hidden or outside or path.suffix.lower() != ".md" or not path.is_file():
            skipped.append(name + (" (a link out of the folder)" if outside else ""))
        else:
            files.append(path)
    return files, skipped


def _sections(text: str, name: str, files: set[str], shown: str, reading: Reading) -> list[_Found]:
    """An index's own prose, one record per heading's section, without the lines that only link to files."""
    where, base = f"{shown}/{name}", name.rpartition("/")[0]
    sections: list[tuple[int, list[str]]] = [(1, [])]
    fence: str | None = None
    outside: list[str] = []
    missing: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if fence is not None:
            fence = None if markdown.fence_closed(line, fence) else fence
        elif (opened := markdown.fence_opened(line)) is not None:
            fence = opened
        elif markdown.is_heading(line):
            sections.append((number, []))
        targets = [t.split("#", 1)[0] for t in _LINK_RE.findall(line) if "://" not in t and not t.startswith("#")]
        linked = [_inside(f"{base}/{t}" if base else t) for t in targets]
        for target, resolved in zip(targets, linked, strict=True):
            if resolved is None:
                outside.append(f"{target} (line {number})")
            elif resolved not in files and resolved.endswith(".md"):
                missing.append(f"{target} (line {number})")
        if fence is None and _LINK_ITEM_RE.fullmatch(line) and targets and all(t in files for t in linked):
            continue  # an index line: the file it points to is imported itself
        sections[-1][1].append(line)
    if outside:
        reading.warnings.append(f"{where}: links out of the folder, not followed: {_some(outside)}")
    if missing:
        reading.warnings.append(f"{where}: links to files that do not exist: {_some(missing)}")
    found = []
    for number, lines in sections:
        body = [line for line in lines[1:] if line.strip()] if lines and markdown.is_heading(lines[0]) else lines
        if not any(line.strip() for line in body):
            continue
        section = "\n".join(lines).strip("\n")
        title = markdown.heading_text(lines[0]) if markdown.is_heading(lines[0]) else "top"
        record = Record(f"{where}:{number}", section)
        stem = name.rpartition(".")[0].replace("/", ".")
        found.append(_Found(record, key_from(f"{stem}-{title}", hashed=True), f"{name}:{number}"))
    return found


def _inside(target: str) -> str | None:
    """A link target as a path relative to the folder (the folder itself is "."), or None when it leaves the folder."""
    if target.startswith("/") or re.match(r"[A-Za-z]:", target):
        return None
    path = posixpath.normpath(target.replace("\\", "/").lstrip("/"))
    return None if path == ".." or path.startswith("../") else path


def _memory(path: Path, name: str, shown: str, reading: Reading, ignored: dict[str, list[str]]) -> _Found | None:
    text = read_source_text(path, shown, reading, name)
    if text is None:
        return None
    # Comments a generator put above the frontmatter are not part of the memory.
    lead = re.match(r"(?:\s*<!--.*?-->)+\s*(?=---\n)", text, re.DOTALL)
    skipped = text[: lead.end()].count("\n") if lead else 0
    front = frontmatter.split(text[lead.end() :] if lead else text, lenient=True)
    reading.warnings.extend(f"{shown}:{line + skipped}: {message}" for line, message in front.problems)
    meta = front.fields.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    top = front.strings()

    def field(key: str) -> str:
        return (top.get(key) or meta.get(key, "")).strip()

    times = [(key, _time(field(key))) for key in TIMES if field(key)]
    created = next((value for _, value in times if value), None)
    updated = next((value for key, value in times if value and key in ("modified", "updated")), None)
    extra = (("updated", updated),) if updated and updated != created else ()
    unread = {key for key, value in times if not value}
    for key in sorted(set(front.fields) - {*FIELDS, *TIMES, "metadata"} | (unread & set(front.fields))):
        ignored[key].append(name)
    for key in sorted(set(meta) - {*FIELDS, *TIMES} | (unread & set(meta) - set(front.fields))):
        ignored[f"metadata.{key}"].append(name)

    kind = field("type").lower()
    if kind and kind not in TYPES:
        reading.warnings.append(
            f"{shown}: type {kind!r} is not one of {', '.join(TYPES)}; imported to the default shard"
        )
        kind = ""
    body = front.body.strip("\n")
    title = field("description") or field("name") or field("title")
    if not title and not markdown.is_heading(body):
        title = path.stem
    entry_text = "\n\n".join(part for part in (title, body) if part.strip())
    named = field("name") or field("title")
    ident = key_from(named) if named else None
    ident = ident or key_from(name[: -len(path.suffix)].replace("/", "."), hashed=True)
    return _Found(Record(shown, entry_text, kind=kind or None, created=created, extra=extra), ident, name)


def _time(value: str) -> str | None:
    """A time as lh's UTC form; a bare date is its midnight UTC."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return f"{value}T00:00:00Z"
    return utc_time(value) or utc_time(f"{value}+00:00")  # a time without a zone is taken as UTC


def _assign_ids(found: list[_Found], reading: Reading) -> None:
    """Records with their ids: where several share one, each gets a hash of its own path appended."""
    count = Counter(item.key for item in found)
    for item in found:
        key = item.key
        if key is not None and count[key] > 1:
            key = f"{key[:51].rstrip('-._')}-{hashlib.sha256(item.path.encode('utf-8')).hexdigest()[:12]}"
        reading.records.append(replace(item.record, id=key))
