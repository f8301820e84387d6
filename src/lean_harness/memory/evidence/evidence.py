"""Evidence anchors: the lines of project files a note cites, and whether they still say the same.

A reference is written `PATH`, `PATH#L12` or `PATH#L12-18` (PATH relative to the project root,
forward slashes). lh stores it in the entry header's `refs` attribute, space separated, as
`PATH#L12-18@DIGEST`: the path percent-encoded (every byte outside letters, digits and
`/ . _ - ~ + , : = ( ) [ ] ! $ & ' * ;`), so a value never holds a quote, a space, `#`, `@` or
a line break; DIGEST is the first 16 hex digits of the SHA-256 of the cited lines, each with
its line ending and trailing whitespace removed, joined by `\\n`. A reference without lines
cites the whole file.

Checking a reference gives one of: fresh (the lines hash as they did), moved (the same lines
now sit elsewhere in the file, or in the file git says it was renamed to), changed, missing.
Git is asked only when a cited file is missing, and only where the project is in a git work
tree (adr/0017-evidence-anchors.md).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lean_harness.errors import LhError, Refused

ATTR = "refs"
DIGEST_CHARS = 16  # _STORED_RE matches this many
MAX_CITED_BYTES = 16 * 1024 * 1024
NEAR_LINES = 64  # how far from its old place a moved range is looked for before the whole file
_SAFE = "/._-~+,:=()[]!$&'*;"  # beside letters and digits, kept unquoted in a stored path
_LINES_RE = re.compile(r"(.*)#L(\d+)(?:-L?(\d+))?")
_STORED_RE = re.compile(r"([^#@\s\"]+)(?:#L(\d+)-(\d+))?@([0-9a-f]{16})")
_PLAIN_RE = re.compile(r"[A-Za-z0-9/._~+,:=()\[\]!$&'*;-]*")
_SPEC_RE = re.compile(r"([^#@\s\"]+)(?:#L(\d+)-(\d+))?")


@dataclass(frozen=True, order=True)
class Anchor:
    """A cited file or line range (start 0: the whole file) and the digest of what it held."""

    path: str
    start: int
    end: int
    digest: str

    @property
    def spec(self) -> str:
        """The reference as a person writes it: PATH, PATH#L12 or PATH#L12-18."""
        if not self.start:
            return self.path
        return f"{self.path}#L{self.start}" if self.start == self.end else f"{self.path}#L{self.start}-{self.end}"

    @property
    def lines(self) -> str:
        """The cited lines as messages name them."""
        if not self.start:
            return "whole file"
        return f"line {self.start}" if self.start == self.end else f"lines {self.start}-{self.end}"

    def stored(self) -> str:
        """The anchor as the refs attribute holds it."""
        where = f"#L{self.start}-{self.end}" if self.start else ""
        return f"{_quote(self.path)}{where}@{self.digest}"


@dataclass(frozen=True)
class Finding:
    """What checking one anchor found; `now` is where a moved anchor's lines are now."""

    anchor: Anchor
    status: str  # one of checked.STATUSES
    now: Anchor | None = None
    renamed_to: str = ""  # the file git says the cited file was renamed to, if any

    @property
    def stale(self) -> bool:
        return self.status in ("changed", "missing")


def digest_of(lines: Sequence[bytes]) -> str:
    """The digest of cited lines as `split_lines` gives them (trailing whitespace and line endings do not count)."""
    return hashlib.sha256(b"\n".join(lines)).hexdigest()[:DIGEST_CHARS]


def read_cited(path: Path) -> bytes | None:
    """A cited file's bytes, or None when it is over MAX_CITED_BYTES: never more than that is read."""
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > MAX_CITED_BYTES:
            return None
        data = handle.read(MAX_CITED_BYTES + 1)  # a file growing while it is read is cut here
    return None if len(data) > MAX_CITED_BYTES else data


def split_lines(data: bytes) -> list[bytes]:
    """A file's lines as an editor numbers them (LF or CRLF endings), without their endings or trailing whitespace."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [line.rstrip() for line in lines]


def encode(anchors: Iterable[Anchor]) -> str:
    """The refs attribute value: each anchor once, sorted."""
    return " ".join(a.stored() for a in sorted(set(anchors)))


def decode(value: str, where: str) -> tuple[Anchor, ...]:
    """The anchors of a refs attribute value; an error naming `where` when one is malformed."""
    anchors = []
    for item in value.split():
        match = _STORED_RE.fullmatch(item)
        if match is None:
            raise LhError(f"{where}: reference {item!r} is malformed; expected PATH#Lstart-end@digest")
        path = _clean_path(_unquote(match.group(1), item, where), item, f"{where}: reference")
        start, end = int(match.group(2) or 0), int(match.group(3) or 0)
        if match.group(2) and not 1 <= start <= end:
            raise LhError(f"{where}: reference {item!r} has an empty line range")
        anchors.append(Anchor(path, start, end, match.group(4)))
    return tuple(anchors)


def parse_spec(spec: str, where: str) -> tuple[str, int, int]:
    """PATH[#Lstart[-Lend]] as (path, start, end); start 0 cites the whole file."""
    match = _LINES_RE.fullmatch(spec)
    path, start, end = (spec, 0, 0) if match is None else (match.group(1), int(match.group(2)), 0)
    if match is not None:
        end = int(match.group(3) or start)
        if not 1 <= start <= end:
            raise LhError(f"{where} {spec}: the line range is empty; write PATH#Lstart-end with 1 <= start <= end")
    return _clean_path(path, spec, where), start, end


def anchor(root: Path, spec: str, where: str = "--ref", allow: Sequence[str] = ()) -> Anchor:
    """Anchor a reference at the content it cites now; refuse paths outside the project or missing.

    The path and the cited lines are scanned for credentials (rules in `allow` excepted): the
    digest of a short secret would let anyone holding the memory confirm a guess of it.
    """
    path, start, end = parse_spec(spec, where)
    full = root / path
    try:
        real = full.resolve(strict=True)
    except FileNotFoundError:
        raise LhError(f"{where} {spec}: there is no {path} in the project; give a path relative to its root") from None
    except (OSError, RuntimeError) as error:
        why = error.strerror if isinstance(error, OSError) else "a link loop"
        raise LhError(f"{where} {spec}: cannot read {path} ({why}); cite a readable file") from None
    if not real.is_relative_to(root.resolve()):
        raise LhError(f"{where} {spec}: {path} leads outside the project; cite files inside it")
    if not real.is_file():
        raise LhError(f"{where} {spec}: {path} is not a file; cite a file, optionally with #Lstart-end")
    try:
        data = read_cited(real)
    except OSError as error:
        raise LhError(f"{where} {spec}: cannot read {path} ({error.strerror}); cite a readable file") from None
    if data is None:
        raise LhError(f"{where} {spec}: {path} is over {MAX_CITED_BYTES} bytes; cite a smaller file")
    lines = split_lines(data)
    if end > len(lines):
        raise LhError(f"{where} {spec}: {path} has {len(lines)} lines; cite lines that exist")
    cited = lines[start - 1 : end] if start else lines
    _refuse_secrets(path, b"\n" * max(start - 1, 0) + b"\n".join(cited), f"{where} {spec}", allow)
    return Anchor(path, start, end, digest_of(cited))


def _refuse_secrets(path: str, cited: bytes, where: str, allow: Sequence[str]) -> None:
    from lean_harness.scanning import credentials
    from lean_harness.scanning.masking import refusal

    for what, text in (("its path", path), (path, cited.decode("utf-8", "replace"))):
        findings = credentials.scan(text, allow=allow)
        if findings:
            first = findings[0]
            line = f"line {first.line} of {what}" if what == path else what
            then = f"nothing was written. Cite other lines, or pass --allow-secret {first.rule} if it is not a secret"
            raise Refused(refusal(f"{where}: {line}", first, then))


def from_items(items: Sequence[str], where: str) -> str:
    """A refs value from stored anchors or PATH[#Lstart[-Lend]] references (left unanchored)."""
    out = []
    for item in items:
        if _STORED_RE.fullmatch(item):
            decode(item, where)
            out.append(item)
            continue
        path, start, end = parse_spec(item, f"{where}: reference")
        out.append(_quote(path) + (f"#L{start}-{end}" if start else ""))
    return " ".join(out)


def resolve(root: Path, value: str, where: str, allow: Sequence[str] = ()) -> str:
    """A refs value with every unanchored item (PATH#Lstart-end, no digest) anchored now."""
    anchors = [*decode(" ".join(i for i in value.split() if "@" in i), where)]
    for item in (item for item in value.split() if "@" not in item):
        match = _SPEC_RE.fullmatch(item)
        if match is None:
            raise LhError(f"{where}: reference {item!r} is malformed; expected PATH#Lstart-end")
        lines = f"#L{match.group(2)}-{match.group(3)}" if match.group(2) else ""
        spec = _unquote(match.group(1), item, where) + lines
        anchors.append(anchor(root, spec, f"{where}: reference", allow))
    return encode(anchors)


def check(root: Path, anchors: Iterable[Anchor]) -> dict[Anchor, Finding]:
    """Check every anchor against the files as they are now; each file is read once."""
    by_path: dict[str, list[Anchor]] = {}
    for item in set(anchors):
        by_path.setdefault(item.path, []).append(item)
    found: dict[Anchor, Finding] = {}
    missing: list[str] = []
    for path, items in sorted(by_path.items()):
        text = _TextFile.read(root, path)
        if text is None:
            missing.append(path)
            continue
        for item in items:
            now = text.find(item)
            status = "fresh" if now == item else "moved" if now is not None else "changed"
            found[item] = Finding(item, status, now if status == "moved" else None)
    renames = renamed(root, missing) if missing else {}
    for path in missing:
        target = renames.get(path)
        text = _TextFile.read(root, target) if target else None
        for item in by_path[path]:
            if text is None or target is None:
                found[item] = Finding(item, "missing")
                continue
            now = text.find(Anchor(target, item.start, item.end, item.digest))
            found[item] = Finding(item, "moved" if now else "changed", now, renamed_to=target)
    return found


class _TextFile:
    """One cited file's lines, trailing whitespace removed, searched nearest-first."""

    def __init__(self, path: str, lines: list[bytes], *, too_large: bool = False) -> None:
        self.path = path
        self.too_large = too_large  # over MAX_CITED_BYTES: not read, so no anchor is found in it
        self.lines = lines  # as split_lines gives them
        self._windows: dict[int, dict[str, list[int]]] = {}
        self._whole: str | None = None

    @classmethod
    def read(cls, root: Path, path: str) -> _TextFile | None:
        try:
            full = (root / path).resolve(strict=True)
            if not full.is_relative_to(root.resolve()) or not full.is_file():
                return None
            data = read_cited(full)
        except (OSError, RuntimeError):
            return None
        return cls(path, [] if data is None else split_lines(data), too_large=data is None)

    def find(self, item: Anchor) -> Anchor | None:
        """Where the anchor's content is in this file: its own lines, else the nearest match."""
        if self.too_large:
            return None
        if not item.start:
            if self._whole is None:
                self._whole = digest_of(self.lines)
            return Anchor(self.path, 0, 0, item.digest) if self._whole == item.digest else None
        size = item.end - item.start + 1
        last = len(self.lines) - size + 1  # the last line a window of this size can start at
        # Lines moved by an edit nearby are found within a few lines; only when they are not is
        # every window of this size hashed, once per file and size (the nearest match wins).
        for distance in range(NEAR_LINES + 1):
            for start in (item.start - distance, item.start + distance) if distance else (item.start,):
                if 1 <= start <= last and digest_of(self.lines[start - 1 : start - 1 + size]) == item.digest:
                    return Anchor(self.path, start, start + size - 1, item.digest)
        windows = self._windows.setdefault(size, {})
        for at in range(1, last + 1) if not windows else ():
            windows.setdefault(digest_of(self.lines[at - 1 : at - 1 + size]), []).append(at)
        starts = windows.get(item.digest)
        if not starts:
            return None
        best = min(starts, key=lambda s: (abs(s - item.start), s))
        return Anchor(self.path, best, best + size - 1, item.digest)


def renamed(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """Where git says each missing path went: committed renames, then staged ones; {} without git."""
    steps: list[tuple[str, str]] = []
    for command in (
        ["log", "-M", "--diff-filter=R", "--name-status", "--format=", "-z", "--reverse", "--relative", "HEAD"],
        ["diff", "--cached", "-M", "--diff-filter=R", "--name-status", "-z", "--relative"],
    ):
        out = _git(root, command)
        if out is None:
            return {}
        steps += _renames_in(out)
    if steps:  # every path masked: a file renamed to a credential is never followed (it reads as missing)
        from lean_harness.scanning.masking import mask_many

        shown = mask_many([path for step in steps for path in step])
        steps = list(zip(shown[0::2], shown[1::2], strict=True))
    found: dict[str, str] = {}
    for path in paths:
        current = path
        for old, new in steps:
            if old == current:
                current = new
        if current != path:
            found[path] = current
    return found


def _git(root: Path, args: list[str]) -> str | None:
    import subprocess

    if not any((folder / ".git").exists() for folder in (root, *root.resolve().parents)):
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotepath=off", *args],
            capture_output=True,
            check=False,
            timeout=60,
            env={**os.environ, "GIT_PAGER": "cat", "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else None


def _renames_in(out: str) -> list[tuple[str, str]]:
    """(old, new) of each `R<score>` NUL old NUL new of git's -z --name-status output."""
    tokens = iter([t.lstrip("\n") for t in out.split("\0")])
    return [(next(tokens, ""), next(tokens, "")) for t in tokens if t.startswith("R") and t[1:].isdigit()]


def _clean_path(path: str, spec: str, where: str) -> str:
    """The one check of a cited path, given or stored: relative, inside the project, plain (`a/./b//c` is `a/b/c`)."""
    if os.sep == "\\":
        path = path.replace("\\", "/")
    if not path or path.startswith("/") or re.match(r"[A-Za-z]:", path):
        raise LhError(f"{where} {spec}: give a path relative to the project root")
    parts = path.split("/")
    if ".." in parts:
        raise LhError(f"{where} {spec}: {path} leads outside the project; cite files inside it")
    clean = "/".join(part for part in parts if part not in ("", "."))
    if not clean:
        raise LhError(f"{where} {spec}: name a file, relative to the project root")
    return clean


def _quote(path: str) -> str:
    if _PLAIN_RE.fullmatch(path):
        return path
    from urllib.parse import quote

    return quote(path, safe=_SAFE)


def _unquote(text: str, item: str, where: str) -> str:
    if "%" not in text:
        return text
    if re.search(r"%(?![0-9A-Fa-f]{2})", text):
        raise LhError(f"{where}: reference {item!r} has a malformed %-escape")
    from urllib.parse import unquote_to_bytes

    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise LhError(f"{where}: reference {item!r} is not UTF-8 once unescaped") from None
