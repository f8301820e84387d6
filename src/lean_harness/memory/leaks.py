"""Credentials in files: scan memory files (or any files) and mask what an agent would read.

Shards are scanned entry by entry, so that an entry's `allow-secret` attribute (set with
`lh memory put --allow-secret RULE`) silences that rule for that entry only; prose and files
that do not parse as shards are scanned whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lean_harness import secret_scan
from lean_harness.errors import LhError
from lean_harness.memory.shard import Entry, ShardError, parse


@dataclass(frozen=True)
class Leak:
    """A finding in a file: where, which rule, and a redacted preview."""

    path: str
    line: int
    column: int
    rule: str
    description: str
    preview: str
    entry: str | None = None


def allowed(entry: Entry) -> tuple[str, ...]:
    """The scanner rules an entry is allowed to trip."""
    value = entry.attr("allow-secret") or ""
    return tuple(rule for rule in value.split(",") if rule)


def scan_text(text: str, shown: str) -> list[Leak]:
    """Every credential in a file's text; shards are scanned entry by entry."""
    try:
        shard = parse(text, shown)
    except ShardError:
        return [_leak(shown, f, 0) for f in secret_scan.scan(text)]
    leaks: list[Leak] = []
    offset_line = 0
    for block in shard.blocks:
        if isinstance(block, str):
            leaks += [_leak(shown, f, offset_line) for f in secret_scan.scan(block)]
            offset_line += block.count("\n")
            continue
        body_line = block.line  # the header line; the text starts on the next one
        leaks += [_leak(shown, f, body_line, block.id) for f in secret_scan.scan(block.text, allow=allowed(block))]
        offset_line += (block.raw or "").count("\n")
    return sorted(leaks, key=lambda leak: (leak.path, leak.line, leak.column, leak.rule))


def scan_paths(paths: Iterable[Path], root: Path) -> tuple[list[Leak], list[str]]:
    """Leaks in the files (folders are walked) and the files that could not be read as text."""
    leaks: list[Leak] = []
    skipped: list[str] = []
    for path in _files(paths):
        shown = _shown(path, root)
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            skipped.append(f"{shown}: not UTF-8 text; skipped")
            continue
        except OSError as error:
            raise LhError(f"{shown}: cannot be read ({error.strerror}); check the path") from None
        leaks += scan_text(text, shown)
    return leaks, skipped


def mask_entry(entry: Entry) -> tuple[str, list[secret_scan.Finding]]:
    """An entry's text with every credential masked, and the findings."""
    findings = secret_scan.scan(entry.text, allow=allowed(entry))
    return (secret_scan.mask(entry.text, findings) if findings else entry.text), findings


def mask_text(text: str) -> tuple[str, list[secret_scan.Finding]]:
    """Any text with every credential masked, and the findings."""
    findings = secret_scan.scan(text)
    return (secret_scan.mask(text, findings) if findings else text), findings


def _leak(shown: str, finding: secret_scan.Finding, line_offset: int, entry: str | None = None) -> Leak:
    return Leak(
        shown,
        finding.line + line_offset,
        finding.column,
        finding.rule,
        finding.description,
        finding.preview,
        entry,
    )


def _files(paths: Iterable[Path]) -> Sequence[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p for p in path.rglob("*") if p.is_file() and not p.is_symlink() and ".cache" not in p.parts
            )
        elif path.exists():
            found.append(path)
        else:
            raise LhError(f"{path.as_posix()}: no such file or folder")
    return found


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
