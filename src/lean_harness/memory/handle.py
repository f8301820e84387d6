"""The open memory: its config, paths, shard reads, cached summaries, token counter and lock.

Commands open one `Memory` per run. Reading a shard, its summary or INDEX.md as it should be
goes through it; writers (memory/writes.py, memory/status.py, archive, inbox, importing) hold
its lock with `writing()`, readers with `reading()` (adr/0007-writes-and-locking.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lean_harness.config import Config
from lean_harness.errors import LhError
from lean_harness.files import display, read_text, refuse_cache_links, refuse_symlink, remove_stale_temps
from lean_harness.lock import locked
from lean_harness.memory import journal
from lean_harness.memory.shard import Entry, entry_at, line_start, line_stop, parse, refuse_conflicting_ids
from lean_harness.memory.summary import Summary, SummaryCache, id_lines, shard_digest, summarize
from lean_harness.memory.tokens import TokenCounter

INDEX_NAME = "INDEX.md"
# Every name lh writes directly under <cacheDir>/lh: `lh deinit --purge` deletes these and nothing
# else there, since a cache dir set in the config may be a folder the user keeps files in.
CACHE_NAMES = (
    *("search", "shards", "tokens", "ranks", "renames", "hooks", "recall"),
    *("write.lock", "journal", "config.json", "scan-clean", "directive-clean", "evidence"),
)
MAX_SHARD_BYTES = 64 * 1024 * 1024


class Memory:
    """One project's memory: its config, caches and token counter; opening it refuses a symbolic link
    on the way to the cache or in it, so no cache file is written through one."""

    def __init__(self, config: Config) -> None:
        self.config = config
        lh_cache = config.cache_dir / "lh"
        refuse_cache_links(lh_cache, config.root)
        self.counter = TokenCounter(config.encoding, lh_cache)
        self.cache = SummaryCache(lh_cache, config.encoding)
        self._summaries: dict[str, Summary] = {}
        self._locked = False

    @property
    def root(self) -> Path:
        return self.config.root

    @property
    def index_path(self) -> Path:
        return self.config.memory_dir / INDEX_NAME

    @property
    def journal_path(self) -> Path:
        """Where a multi-file write is recorded until it is done (memory/journal.py): the cache, never git."""
        return self.config.cache_dir / "lh" / journal.JOURNAL_NAME

    def shard_path(self, name: str) -> Path:
        return self.config.shard_path(name)

    def shown(self, path: Path) -> str:
        return display(path, self.root)

    def check_shard(self, name: str) -> str:
        """The shard name, or an error that lists the configured shards."""
        from lean_harness.memory import rules  # a query names no shard as often as not

        problem = rules.shard_problem(name, self.config.shard_names, self.config.shown_path)
        if problem:
            raise LhError(problem)
        return name

    def check_dir(self) -> None:
        """Raise unless the memory dir exists as a real folder, with no folder where INDEX.md belongs."""
        folder = self.config.memory_dir
        refuse_symlink(folder, self.root)
        if not folder.is_dir():
            raise LhError(f'no memory directory at {self.shown(folder)}; run "lh init"')
        if self.index_path.is_dir():  # found before any write, never after a shard was written
            raise LhError(f"{self.shown(self.index_path)}: is a folder where a file was expected; move it away")

    def read_shard(self, name: str) -> tuple[str, bytes]:
        """A shard's text, less a byte-order mark, and its bytes as the file holds them, mark included
        (its digest is then the one its summary holds); "" when the file does not exist yet."""
        path = self.shard_path(name)
        refuse_symlink(path, self.root)
        try:
            self.check_size(name, path.stat().st_size)
        except FileNotFoundError:
            return "", b""
        text = read_text(path, self.root, keep_bom=True)
        return text.removeprefix("\ufeff"), text.encode("utf-8")

    def check_size(self, name: str, size: int, written: bool = False) -> None:
        """Raise when shard `name`, `size` bytes long (`written`: as a write would leave it), is past the size
        limit of a shard."""
        if size > MAX_SHARD_BYTES:
            state, fix = ("would be", "nothing was written. Run") if written else ("is", "split it or run")
            raise LhError(
                f"{self.shown(self.shard_path(name))} {state} {size} bytes, over the {MAX_SHARD_BYTES} byte limit"
                f' for a shard; {fix} "lh memory compact"{" first" if written else ""}'
            )

    def check_shards(self) -> None:
        """Summarize every shard: a broken one stops the command here, before any write (INDEX.md needs them all)."""
        for name in self.config.shard_names:
            self.summary(name)

    def entries(self, name: str, text: str | None = None) -> list[Entry]:
        """The parsed entries of one shard (of `text`, its text read already)."""
        text = self.read_shard(name)[0] if text is None else text
        return list(parse(text, self.shown(self.shard_path(name))).entries)

    def summary(self, name: str) -> Summary:
        """A shard's summary, from the cache when it still matches the file."""
        known = self._summaries.get(name)
        if known is not None:
            return known
        if not self._locked:
            # Under a shared lock, no writer changes the shard between reading it and caching
            # its summary, so a summary never describes bytes other than those it was made from.
            with self.reading():
                return self.summary(name)
        path = self.shard_path(name)
        refuse_symlink(path, self.root)
        summary = self.cache.load(name, path)
        if isinstance(summary, bytes):  # not cached: the shard is summarized from the bytes just read
            shard = parse(read_text(path, self.root, data=summary), self.shown(path))
            summary, ids = summarize(name, shard_digest(summary), shard, self.counter)
            self.cache.store(summary, path, ids)
        if summary.repeated:
            self._refuse_conflicting_ids(name, summary)
        self._summaries[name] = summary
        return summary

    def _refuse_conflicting_ids(self, name: str, summary: Summary) -> None:
        # Two entries with one id and different texts are two versions of one note, typically
        # from a merge: never pick one silently. The ids listing shows it without a parse.
        texts: dict[str, str] = {}
        for line in self.listing(name, summary.sha256).splitlines():
            digest, _, key = line.partition(" ")
            if texts.setdefault(key, digest) != digest:
                refuse_conflicting_ids(self.entries(name), self.shown(self.shard_path(name)))

    def listing(self, name: str, sha256: str, text: str | None = None) -> str:
        """The ids listing of the shard whose bytes have digest `sha256`: cached, else read (or from its `text`)."""
        listing = self.cache.ids(name, sha256)
        return id_lines(self.entries(name, text)) if listing is None else listing

    def forget_summaries(self) -> None:
        """Drop the summaries read so far, after shard files were replaced."""
        self._summaries.clear()

    def forget_summary(self, name: str) -> None:
        """Drop one shard's summary read so far, after its file was replaced."""
        self._summaries.pop(name, None)

    def keep_summary(self, name: str, summary: Summary) -> None:
        """Take `summary` as shard `name`'s, made by a writer from the bytes it wrote."""
        self._summaries[name] = summary

    @property
    def locked(self) -> bool:
        """True while this memory holds the lock, shared or not."""
        return self._locked

    @contextmanager
    def writing(self, timeout: float | None = None) -> Iterator[None]:
        """Hold the write lock (waiting at most `timeout` s); the token cache is appended to before it is let go."""
        from lean_harness import hookstate  # what the hooks remember of lh's writes

        self.check_dir()
        refuse_symlink(self.index_path, self.root)  # before any write, not after the shard's
        # Files lh writes are recorded as its own, so the prompt hook does not report them back.
        with (
            self._lock(shared=False, timeout=timeout),
            hookstate.lh_writes(self.config.memory_dir, self.config.cache_dir, self.root),
        ):
            self._summaries.clear()
            remove_stale_temps(self.config.memory_dir)
            yield
            self.counter.save()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the lock shared: writers wait, other readers do not."""
        if self._locked:
            yield
            return
        with self._lock(shared=True):
            yield
            self.counter.save()  # counts made while reading are kept, appended under the lock

    @contextmanager
    def _lock(self, shared: bool, timeout: float | None = None) -> Iterator[None]:
        lock_path = self.config.cache_dir / "lh" / "write.lock"
        refuse_symlink(lock_path, self.root)  # opened, not replaced: a link to a file is refused too
        with locked(lock_path, self.shown(lock_path), timeout, shared=shared):
            self._locked = True
            try:
                # A compaction killed after its commit point is finished before anything is read
                # (adr/0012-compaction.md); renames are idempotent, so concurrent readers may both try.
                journal.recover(self.config.memory_dir, self.journal_path, self.root)
                yield
            finally:
                self._locked = False


def open_memory(config: Config) -> Memory:
    """The memory of a loaded config."""
    return Memory(config)


def header_re(key: str) -> re.Pattern[str]:
    """A pattern that finds the header line of the entry `key` in shard text."""
    # A line starts after LF or a lone CR and ends before either (memory/shard.py split_lines).
    return re.compile(
        r'(?:^|(?<=\r))<!-- lh:entry [^\r\n]*?\bid="' + re.escape(key) + r'"[^\r\n]*-->(?=\r|\n|\Z)', re.MULTILINE
    )


def locate(text: str, key: str, shown: str) -> tuple[int, int, Entry] | None:
    """The span of the entry with id `key` in shard text, and the entry: `header_re(key).search`, tried
    only on the lines str.find says hold `id="KEY"` (a regex scan of a large shard per hit was slow)."""
    pattern = header_re(key)
    needle = f'id="{key}"'
    at = text.find(needle)
    while at >= 0:
        start = line_start(text, at)
        if pattern.match(text, start):
            entry, end = entry_at(text, start, shown)
            return start, end, entry
        line_end = line_stop(text, at)
        if line_end == len(text):
            return None
        at = text.find(needle, line_end)
    return None
