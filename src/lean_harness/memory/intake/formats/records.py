"""What every format reader returns: records, problems with their place, and the bytes it read."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from lean_harness.memory.shard import ID_RE, TAG_RE


@dataclass(frozen=True)
class Record:
    """One memory from a source; `shard` None means it is routed by `kind` (a type or category)."""

    where: str
    text: str
    shard: str | None = None
    kind: str | None = None
    id: str | None = None
    tags: tuple[str, ...] = ()
    created: str | None = None
    extra: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Problem:
    """A record that cannot be imported as it is: the file as shown, the line (0: whole file), what."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


@dataclass
class Reading:
    """A source as read: its records, problems, warnings, and (relative path, bytes) of each file."""

    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: list[tuple[str, bytes]] = field(default_factory=list)

    def digest(self) -> str:
        """SHA-256 over the files read, in path order: the source's identity in the import marker."""
        hasher = hashlib.sha256()
        for name, data in sorted(self.files):
            hasher.update(f"{name}\0{hashlib.sha256(data).hexdigest()}\n".encode())
        return hasher.hexdigest()


def read_source_text(path: Path, shown: str, reading: Reading, relative: str) -> str | None:
    """A source file's text (BOM dropped, line endings made LF), or None with a problem recorded."""
    try:
        data = path.read_bytes()
    except OSError as error:
        reading.problems.append(Problem(shown, 0, f"cannot be read ({error.strerror})"))
        return None
    reading.files.append((relative, data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        text = data.decode("utf-8", "replace")
        # UTF-8 with a character cut short (at the end, or where a tool cut a long line) is read
        # with U+FFFD for the cut; a file with no other character past ASCII is another encoding.
        if error.reason != "unexpected end of data" and not any("\x7f" < c != "\ufffd" for c in text):
            reading.problems.append(Problem(shown, line, f"not valid UTF-8 (byte {error.start}); re-save it as UTF-8"))
            return None
        reading.warnings.append(f"{shown}:{line}: a UTF-8 character cut short (byte {error.start}); read as U+FFFD")
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def utc_time(value: object) -> str | None:
    """An ISO 8601 time with a zone as lh's UTC form (2026-01-31T09:00:00Z), or None."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment.tzinfo is not None else None


TIME_HINT = "expected a time with a zone, like 2026-01-31T09:00:00Z"


def key_from(name: str, *, hashed: bool = False) -> str | None:
    """An entry id made from a name or a path: other characters become '-'.

    A name with characters an id cannot spell (any outside ASCII), or a long one, ends in a hash
    of the whole name, so two names never share an id only because their ASCII spellings agree.
    A name with no usable ASCII gives None, or with `hashed` the hash alone."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._")
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
    if not slug:
        return digest if hashed and name.strip() else None
    if len(slug) > 64 or not name.isascii():
        slug = slug[:51].rstrip("-._") + "-" + digest
    return slug if ID_RE.fullmatch(slug) else None


def tag_from(name: str) -> str | None:
    """A tag made from a folder name, or None when nothing of it fits."""
    slug = re.sub(r"[^a-z0-9._:/+-]+", "-", name.lower()).strip("-")[:48].rstrip("-")
    return slug if TAG_RE.fullmatch(slug) else None
