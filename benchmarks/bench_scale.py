"""Time every command an agent runs on every turn at 1k, 10k and 100k entries; print a Markdown table.

Each memory is a throwaway project built as `bench_memory.py` builds its memories (`lh init`,
then shard files written directly from a fixed seed). Every figure is a whole process started
from the source tree given by --repo (`python -m lean_harness` with that tree's `src` first on
the path; hooks through its `hooks/run.py`), so the same script measures two checkouts, for
instance before and after a change. A bare `python -c pass` runs in the same loop as the
commands it is compared with, so a busy machine slows both; figures are medians, and the peak
resident memory of each process is read from the kernel (os.wait4).

Rows (the table of the speed issue):

- put: `lh memory put` of a new note, caches settled, against the bare interpreter, and at the
  largest size against the smallest; and a put right after it (a burst: the shard's summary is
  then checked against its bytes, since its file changed within the clock's resolution);
- warm query: `lh memory get --query` when nothing changed, against the bare interpreter;
- first query after a write: a put, then the query, against a warm query;
- doctor: `lh doctor` in a git repository (it exits 1 here: the memories are over budget);
- lint: `lh memory lint` (only up to --lint-max entries: it used to be quadratic);
- import: `lh memory import` of the same notes as jsonl into an empty memory;
- cold index: `lh memory index` with the cache dir and INDEX.md deleted, against a process that
  loads tiktoken and encodes every entry text;
- SessionStart: the hook's first run after INDEX.md changed (its clean mark deleted), at the
  smallest size, against the bare interpreter.

Queries are taken from a fixed list of phrasings an engineer would type, some matching the
generated notes closely and some not, so the figures do not depend on one lucky query.
"""

from __future__ import annotations

import argparse
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_memory
from bench_memory import MEMORY_DIR, SEED, SHARDS, note, notes, render

QUERIES = (
    "sqlite3 database is locked",
    "flaky test on Windows PermissionError",
    "os.replace temp file different filesystem",
    "how do we name branches",
    "retry ConnectionResetError keep-alive",
    "startup time imports",
    "pytest timeout cold cache",
    "unicode decode error locale stdout",
    "kubernetes helm chart rollout",  # matches nothing the generator writes
)
SETTLE_S = bench_memory.SETTLE_S
ROW_GROUPS = ("put", "query", "doctor", "lint", "index", "import", "hook")
TARGETS = {
    "put / bare at 10k": 5.0,
    "put 100k / 1k": 1.3,
    "warm query / bare at 10k": 6.0,
    "first query after write / warm at 10k": 2.0,
    "warm query at 100k (ms)": 500.0,
    "first query after write at 100k (ms)": 1000.0,
    "query peak RSS at 100k (MB)": 300.0,
    "doctor at 100k (ms)": 2000.0,
    "lint at 10k (ms)": 2000.0,
    "import of 100k (ms)": 20000.0,
    "cold index / raw tiktoken at 10k": 1.3,
    "SessionStart after INDEX.md changed / bare": 1.5,
}


class BenchError(Exception):
    """A process that failed; the message says which and why."""


@dataclass
class Sample:
    ms: float  # wall time
    rss_mb: float  # peak resident memory
    cpu_ms: float  # user + system CPU time: steadier than wall time on a busy machine


@dataclass
class Figures:
    """Samples per measure for one memory size."""

    size: int
    samples: dict[str, list[Sample]] = field(default_factory=dict)

    def add(self, name: str, sample: Sample) -> None:
        self.samples.setdefault(name, []).append(sample)

    def ms(self, name: str) -> float | None:
        values = self.samples.get(name)
        return statistics.median(s.ms for s in values) if values else None

    def cpu(self, name: str) -> float | None:
        values = self.samples.get(name)
        return statistics.median(s.cpu_ms for s in values) if values else None

    def rss(self, name: str) -> float | None:
        values = self.samples.get(name)
        return max(s.rss_mb for s in values) if values else None


class Runner:
    """Starts whole processes from one source tree, timed, with their peak memory."""

    def __init__(self, repo: Path, work: Path) -> None:
        self.repo = repo
        self.env = dict(os.environ)
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env["PYTHONPYCACHEPREFIX"] = str(work / "bytecode")
        self.env["PYTHONPATH"] = str(repo / "src")
        self.env["CLAUDE_PLUGIN_ROOT"] = str(repo)
        for key in [k for k in self.env if k.startswith("LH_")]:
            del self.env[key]

    def run(self, argv: Sequence[str], cwd: Path, ok: tuple[int, ...] = (0,), stdin: bytes | None = None) -> Sample:
        start = time.perf_counter()
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=self.env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        if stdin is not None:
            assert process.stdin is not None
            process.stdin.write(stdin)
            process.stdin.close()
        assert process.stderr is not None
        error = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = (time.perf_counter() - start) * 1000
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in ok:
            raise BenchError(f"{' '.join(map(str, argv))} (in {cwd}) exited {process.returncode}:\n{error.decode()}")
        scale = 1024 * 1024 if sys.platform == "darwin" else 1024
        return Sample(elapsed, usage.ru_maxrss / scale, (usage.ru_utime + usage.ru_stime) * 1000)

    def lh(self, *args: str, cwd: Path, ok: tuple[int, ...] = (0,), stdin: bytes | None = None) -> Sample:
        return self.run([sys.executable, "-m", "lean_harness", *args], cwd, ok, stdin)

    def bare(self, cwd: Path) -> Sample:
        return self.run([sys.executable, "-c", "pass"], cwd)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def build(runner: Runner, root: Path, made: list[bench_memory.Note]) -> None:
    """A project at `root` whose shards hold `made`, written directly, then indexed once."""
    root.mkdir(parents=True)
    runner.lh("init", cwd=root)
    memory = root / MEMORY_DIR
    for shard in SHARDS:
        path = memory / f"{shard}.md"
        head = path.read_text("utf-8")
        body = "".join(render(n) for n in made if n.shard == shard)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(head + body)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    runner.lh("memory", "index", cwd=root)


def new_note(rng: random.Random, existing: set[str]) -> tuple[str, str]:
    names, weights = list(SHARDS), list(SHARDS.values())
    shard = rng.choices(names, weights)[0]
    text = note(shard, rng)
    while text in existing:
        text = note(shard, rng)
    existing.add(text)
    return shard, text


def measure(runner: Runner, work: Path, size: int, args: argparse.Namespace, smallest: bool) -> Figures:
    figures = Figures(size)
    root = work / f"memory-{size}"
    made = notes(size)
    log(f"{size}: building")
    if args.memories is None:
        build(runner, root, made)
    else:  # built once, then copied: a 100k memory takes minutes to build
        kept = args.memories / f"memory-{size}"
        if not kept.exists():
            build(runner, kept, made)
        shutil.copytree(kept, root, symlinks=True)
        runner.lh("memory", "index", cwd=root)
    existing = {n.text for n in made}
    rng = random.Random(SEED + size)
    repeat = args.repeat

    log(f"{size}: puts")
    runner.lh("memory", "put", *new_note(rng, existing), cwd=root)  # warms the bytecode cache
    for _ in range(repeat if "put" in args.only else 0):
        time.sleep(SETTLE_S)  # settled summaries, as for a put that follows the last write by seconds
        figures.add("bare (put)", runner.bare(root))
        figures.add("put", runner.lh("memory", "put", *new_note(rng, existing), cwd=root))
        # A burst: the shard changed under a second ago, so its cached summary is checked against its bytes.
        figures.add("put right after a put", runner.lh("memory", "put", *new_note(rng, existing), cwd=root))

    log(f"{size}: queries")
    if "query" in args.only:
        runner.lh("memory", "get", "--query", QUERIES[0], cwd=root)  # the index as a memory in use has it
    for turn in range(repeat if "query" in args.only else 0):
        query = QUERIES[turn % len(QUERIES)]
        runner.lh("memory", "put", *new_note(rng, existing), cwd=root)
        figures.add("first query after write", runner.lh("memory", "get", "--query", query, cwd=root))
        figures.add("bare (query)", runner.bare(root))
        figures.add("warm query", runner.lh("memory", "get", "--query", query, cwd=root))
        other = QUERIES[(turn + 3) % len(QUERIES)]
        figures.add("warm query", runner.lh("memory", "get", "--query", other, cwd=root))

    log(f"{size}: doctor")
    if "doctor" in args.only:
        runner.lh("doctor", cwd=root, ok=(0, 1))
    for _ in range(args.doctor_repeat if "doctor" in args.only else 0):
        figures.add("doctor", runner.lh("doctor", cwd=root, ok=(0, 1)))

    if size <= args.lint_max and "lint" in args.only:
        log(f"{size}: lint")
        for _ in range(args.doctor_repeat):
            figures.add("lint", runner.lh("memory", "lint", cwd=root, ok=(0, 1)))

    log(f"{size}: cold index")
    texts = root / "texts.json"
    texts.write_text(json.dumps([n.text for n in made]), "utf-8")
    raw = [sys.executable, "-c", bench_memory.RAW_TIKTOKEN, str(texts)]
    if "index" in args.only:
        runner.run(raw, root)
    for _ in range(args.cold_repeat if "index" in args.only else 0):
        shutil.rmtree(root / ".agents" / ".cache", ignore_errors=True)
        (root / MEMORY_DIR / "INDEX.md").unlink(missing_ok=True)
        figures.add("cold index", runner.lh("memory", "index", cwd=root))
        figures.add("raw tiktoken", runner.run(raw, root))

    if size <= args.import_max and "import" in args.only:
        log(f"{size}: import")
        source = work / f"import-{size}.jsonl"
        with open(source, "w", encoding="utf-8") as handle:
            for n in made:
                handle.write(json.dumps({"shard": n.shard, "text": n.text, "tags": list(n.tags)}) + "\n")
        target = work / f"import-{size}"
        target.mkdir()
        runner.lh("init", cwd=target)
        figures.add("import", runner.lh("memory", "import", str(source), cwd=target, ok=(0, 1)))
        shutil.rmtree(target)
        source.unlink()

    if smallest and "hook" in args.only:
        log(f"{size}: SessionStart hook")
        runner.lh("memory", "index", cwd=root)
        event = json.dumps({"session_id": "bench", "cwd": str(root)}).encode()
        hook = [sys.executable, "-S", str(runner.repo / "hooks" / "run.py"), "session-start"]
        marker = root / ".agents" / ".cache" / "lh" / "hooks" / "index-clean"
        runner.run(hook, root, stdin=event)
        for _ in range(args.hook_repeat):
            figures.add("bare (hook)", runner.bare(root))
            figures.add("SessionStart, warm", runner.run(hook, root, stdin=event))
            marker.unlink(missing_ok=True)
            figures.add("SessionStart after INDEX.md changed", runner.run(hook, root, stdin=event))
    shutil.rmtree(root, ignore_errors=True)
    return figures


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def rows(results: list[Figures]) -> list[tuple[str, list[str]]]:
    """Table rows: a label and one cell per size."""
    first = results[0]

    def cells(value: object) -> list[str]:
        return [_cell(value(f)) if callable(value) else "" for f in results]

    table: list[tuple[str, list[str]]] = []
    for name in (
        "bare (put)",
        "put",
        "put right after a put",
        "bare (query)",
        "warm query",
        "first query after write",
        "doctor",
        "lint",
        "import",
        "cold index",
        "raw tiktoken",
        "bare (hook)",
        "SessionStart, warm",
        "SessionStart after INDEX.md changed",
    ):
        if any(f.ms(name) is not None for f in results):
            table.append((f"{name} (ms)", cells(lambda f, n=name: f.ms(n))))
            table.append((f"{name}, CPU (ms)", cells(lambda f, n=name: f.cpu(n))))
            if name not in ("raw tiktoken",) and not name.startswith("bare"):
                table.append((f"{name}, peak RSS (MB)", cells(lambda f, n=name: f.rss(n))))
    ratios = (
        ("put / bare", "put", "bare (put)", False),
        ("put / put at smallest", "put", "put", True),
        ("warm query / bare", "warm query", "bare (query)", False),
        ("first query after write / warm query", "first query after write", "warm query", False),
        ("cold index / raw tiktoken", "cold index", "raw tiktoken", False),
        ("SessionStart after INDEX.md changed / bare", "SessionStart after INDEX.md changed", "bare (hook)", False),
    )
    for label, top, bottom, against_first in ratios:
        for metric in ("ms", "cpu"):
            table.append(
                (
                    f"{label}{', CPU' if metric == 'cpu' else ''}",
                    cells(
                        lambda f, t=top, b=bottom, m=metric, a=against_first: _ratio(
                            getattr(f, m)(t), getattr(first if a else f, m)(b)
                        )
                    ),
                )
            )
    return table


def _cell(value: object) -> str:
    if value is None:
        return ""
    assert isinstance(value, float)
    return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"


def targets(results: list[Figures], metric: str = "ms") -> list[tuple[str, float | None, float]]:
    """Each target of the issue with the value measured as wall ("ms") or CPU ("cpu") time."""
    by_size = {f.size: f for f in results}
    small, ten, big = by_size.get(1000), by_size.get(10_000), by_size.get(100_000)
    smallest = results[0]

    def get(f: Figures | None, name: str) -> float | None:
        value: float | None = getattr(f, metric)(name) if f else None
        return value

    values = {
        "put / bare at 10k": _ratio(get(ten, "put"), get(ten, "bare (put)")),
        "put 100k / 1k": _ratio(get(big, "put"), get(small, "put")),
        "warm query / bare at 10k": _ratio(get(ten, "warm query"), get(ten, "bare (query)")),
        "first query after write / warm at 10k": _ratio(get(ten, "first query after write"), get(ten, "warm query")),
        "warm query at 100k (ms)": get(big, "warm query"),
        "first query after write at 100k (ms)": get(big, "first query after write"),
        "query peak RSS at 100k (MB)": max(
            (v for v in (big.rss("warm query"), big.rss("first query after write")) if v is not None), default=None
        )
        if big
        else None,
        "doctor at 100k (ms)": get(big, "doctor"),
        "lint at 10k (ms)": get(ten, "lint"),
        "import of 100k (ms)": get(big, "import"),
        "cold index / raw tiktoken at 10k": _ratio(get(ten, "cold index"), get(ten, "raw tiktoken")),
        "SessionStart after INDEX.md changed / bare": _ratio(
            get(smallest, "SessionStart after INDEX.md changed"), get(smallest, "bare (hook)")
        ),
    }
    return [(name, values[name], limit) for name, limit in TARGETS.items()]


def report(results: list[Figures], repo: Path, args: argparse.Namespace, loads: list[tuple[float, ...]]) -> str:
    sizes = [f"{f.size // 1000}k entries" if f.size >= 1000 else f"{f.size} entries" for f in results]
    lines = [
        f"Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs; source {repo}.",
        f"Medians of {args.repeat} runs (doctor and lint {args.doctor_repeat}, cold index {args.cold_repeat},"
        f" hooks {args.hook_repeat}, import 1); peak RSS is the largest of the runs.",
        "Load average (1, 5, 15 min) at the start of each size and at the end: "
        + "; ".join("/".join(f"{x:.2f}" for x in load) for load in loads)
        + ".",
        "",
        "| measure | " + " | ".join(sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for label, values in rows(results):
        lines.append(f"| {label} | " + " | ".join(values) + " |")
    lines += ["", "| target | wall | CPU | limit | |", "|---|---:|---:|---:|---|"]
    for (name, value, limit), (_, cpu, _) in zip(targets(results), targets(results, "cpu"), strict=True):
        verdict = "" if value is None else ("pass" if value <= limit else "MISS")
        if cpu is not None and value is not None and (cpu <= limit) != (value <= limit):
            verdict += f" ({'pass' if cpu <= limit else 'MISS'} by CPU)"
        shown = "not measured" if value is None else _cell(value)
        lines.append(f"| {name} | {shown} | {_cell(cpu)} | {limit:g} | {verdict} |")
    return "\n".join(lines)


def parse_sizes(text: str) -> list[int]:
    return sorted({int(part.strip().lower().replace("k", "000")) for part in text.split(",") if part.strip()})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1], help="the source tree")
    parser.add_argument("--sizes", type=parse_sizes, default=[1000, 10_000, 100_000], help="default 1k,10k,100k")
    parser.add_argument("--repeat", type=int, default=7, help="runs per put and query figure (default 7)")
    parser.add_argument("--doctor-repeat", type=int, default=3, help="runs per doctor and lint figure (default 3)")
    parser.add_argument("--cold-repeat", type=int, default=3, help="runs per cold index figure (default 3)")
    parser.add_argument("--hook-repeat", type=int, default=20, help="runs per hook figure (default 20)")
    parser.add_argument("--lint-max", type=parse_sizes, default=[10_000], help="lint only up to this size (10k)")
    parser.add_argument("--import-max", type=parse_sizes, default=[100_000], help="import only up to this size")
    parser.add_argument("--memories", type=Path, help="build each memory once into this folder and reuse it")
    parser.add_argument(
        "--only",
        type=lambda text: set(text.split(",")),
        default=set(ROW_GROUPS),
        help=f"measure only these groups of rows, comma-separated (default all: {','.join(ROW_GROUPS)})",
    )
    parser.add_argument("--json", type=Path, help="also write every sample as JSON to this file")
    args = parser.parse_args(argv)
    args.lint_max, args.import_max = args.lint_max[-1], args.import_max[-1]
    repo = args.repo.resolve()
    work = Path(tempfile.mkdtemp(prefix="lh-bench-scale-"))
    runner = Runner(repo, work)
    loads: list[tuple[float, ...]] = []
    results = []
    try:
        runner.bare(work)
        for number, size in enumerate(args.sizes):
            loads.append(os.getloadavg())
            results.append(measure(runner, work, size, args, smallest=number == 0))
            log(report(results, repo, args, [*loads, os.getloadavg()]))  # so far, in case a later size is cut short
        loads.append(os.getloadavg())
    except BenchError as error:
        print(f"bench_scale: {error}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(report(results, repo, args, loads))
    if args.json:
        data = {
            "repo": str(repo),
            "loads": loads,
            "sizes": {
                str(f.size): {
                    k: [[round(s.ms, 2), round(s.cpu_ms, 2), round(s.rss_mb, 1)] for s in v]
                    for k, v in f.samples.items()
                }
                for f in results
            },
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
