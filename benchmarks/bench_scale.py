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
- warm query: `lh memory get --query` when nothing changed for a few seconds (summaries settled,
  as for put), against the bare interpreter;
- first query after a write: a put, then the query, against a warm query; and a second query
  within the clock's resolution of the write, when the changed shard's bytes are checked again;
- doctor: `lh doctor` in a git repository (it exits 1 here: the memories are over budget);
- lint: `lh memory lint` (only up to --lint-max entries: it used to be quadratic);
- import: `lh memory import` of the same notes as jsonl into an empty memory;
- cold index: `lh memory index` with the cache dir and INDEX.md deleted, against a process that
  loads tiktoken and encodes every entry text;
- SessionStart: the hook's first run after an lh write changed INDEX.md (a put), and after a
  hand edit changed it, at the smallest size, against the bare interpreter;
- doctor is also paired with a bare interpreter run in the same loop, and measured again right
  after a put (a shard and lh's caches changed since the last run).

`--baseline DIR` measures a second source tree in the same loops, each sample taken from both
trees in turn, so a busy machine slows both alike (both use one memory, so two trees whose search
index formats differ rebuild each other's index: compare those with
retrieval/bench_query.py, which gives each its own copy); `--only` picks groups of rows; `--memories DIR`
builds each memory once and copies it for later runs (a 100k memory takes a while to build).

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

    def hook(self, event: str) -> list[str]:
        return [sys.executable, "-S", str(self.repo / "hooks" / "run.py"), event]


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


ROW_GROUPS = ("put", "query", "doctor", "lint", "index", "import", "hook")


def measure(runners: list[Runner], work: Path, size: int, args: argparse.Namespace, smallest: bool) -> list[Figures]:
    """Figures for each source tree; every sample is taken from each tree in turn, in the same loop."""
    every = [Figures(size) for _ in runners]
    pairs = list(zip(runners, every, strict=True))
    runner = runners[0]
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
    groups = args.only

    if "put" in groups:
        log(f"{size}: puts")
        for each, _ in pairs:
            each.lh("memory", "put", *new_note(rng, existing), cwd=root)  # warms the bytecode cache
        for _ in range(repeat):
            for each, figures in pairs:
                time.sleep(SETTLE_S)  # settled summaries, as for a put that follows the last write by seconds
                figures.add("bare (put)", each.bare(root))
                figures.add("put", each.lh("memory", "put", *new_note(rng, existing), cwd=root))
                # A burst: the shard changed under a second ago, so its cached summary is checked against its bytes.
                figures.add("put right after a put", each.lh("memory", "put", *new_note(rng, existing), cwd=root))

    if "query" in groups:
        log(f"{size}: queries")
        for each, _ in pairs:
            each.lh("memory", "get", "--query", QUERIES[0], cwd=root)  # the index as a memory in use has it
        for turn in range(repeat):
            query = QUERIES[turn % len(QUERIES)]
            for each, figures in pairs:
                each.lh("memory", "put", *new_note(rng, existing), cwd=root)
                figures.add("first query after write", each.lh("memory", "get", "--query", query, cwd=root))
                other = QUERIES[(turn + 3) % len(QUERIES)]
                # Within the clock's resolution of the write, the changed shard's summary is checked
                # against its bytes again (summary.py), as for a put right after a put.
                figures.add("query right after a query", each.lh("memory", "get", "--query", other, cwd=root))
            time.sleep(SETTLE_S)  # settled summaries: "warm" means nothing is read or hashed again
            for each, figures in pairs:
                figures.add("bare (query)", each.bare(root))
                figures.add("warm query", each.lh("memory", "get", "--query", query, cwd=root))
                figures.add("warm query", each.lh("memory", "get", "--query", other, cwd=root))

    if "doctor" in groups:
        log(f"{size}: doctor")
        for each, _ in pairs:
            each.lh("doctor", cwd=root, ok=(0, 1))
        for _ in range(args.doctor_repeat):
            for each, figures in pairs:
                figures.add("bare (doctor)", each.bare(root))
                figures.add("doctor", each.lh("doctor", cwd=root, ok=(0, 1)))
                each.lh("memory", "put", *new_note(rng, existing), cwd=root)  # a shard and the caches change
                figures.add("doctor after a write", each.lh("doctor", cwd=root, ok=(0, 1)))

    if "lint" in groups and size <= args.lint_max:
        log(f"{size}: lint")
        for _ in range(args.doctor_repeat):
            for each, figures in pairs:
                figures.add("lint", each.lh("memory", "lint", cwd=root, ok=(0, 1)))

    if "index" in groups:
        log(f"{size}: cold index")
        texts = work / f"texts-{size}.json"
        texts.write_text(json.dumps([n.text for n in made]), "utf-8")
        raw = [sys.executable, "-c", bench_memory.RAW_TIKTOKEN, str(texts)]
        runner.run(raw, root)
        for _ in range(args.cold_repeat):
            for each, figures in pairs:
                shutil.rmtree(root / ".agents" / ".cache", ignore_errors=True)
                (root / MEMORY_DIR / "INDEX.md").unlink(missing_ok=True)
                figures.add("cold index", each.lh("memory", "index", cwd=root))
                figures.add("raw tiktoken", each.run(raw, root))
        texts.unlink()

    if "import" in groups and size <= args.import_max:
        log(f"{size}: import")
        source = work / f"import-{size}.jsonl"
        with open(source, "w", encoding="utf-8") as handle:
            for n in made:
                handle.write(json.dumps({"shard": n.shard, "text": n.text, "tags": list(n.tags)}) + "\n")
        for _ in range(args.import_repeat):
            for number, (each, figures) in enumerate(pairs):
                target = work / f"import-{size}-{number}"
                target.mkdir()
                each.lh("init", cwd=target)
                figures.add("import", each.lh("memory", "import", str(source), cwd=target, ok=(0, 1)))
                shutil.rmtree(target)
        source.unlink()

    if "hook" in groups and smallest:
        log(f"{size}: SessionStart hook")
        runner.lh("memory", "index", cwd=root)
        # One copy of the memory per tree: each tree's hooks keep their own state beside it.
        copies = [work / f"hook-{size}-{number}" for number in range(len(pairs))]
        for copy, (each, _) in zip(copies, pairs, strict=True):
            shutil.copytree(root, copy)
            event = json.dumps({"session_id": "bench", "cwd": str(copy)}).encode()
            each.run(each.hook("session-start"), copy, stdin=event)
        for turn in range(args.hook_repeat):
            for copy, (each, figures) in zip(copies, pairs, strict=True):
                hook = each.hook("session-start")
                event = json.dumps({"session_id": "bench", "cwd": str(copy)}).encode()
                time.sleep(SETTLE_S)  # INDEX.md as a later session finds it: settled, and seen once since
                each.run(hook, copy, stdin=event)
                figures.add("bare (hook)", each.bare(copy))
                figures.add("SessionStart, warm", each.run(hook, copy, stdin=event))
                # As in a session: an lh write changed INDEX.md (a put: its newest titles and totals).
                each.lh("memory", "put", *new_note(rng, existing), cwd=copy)
                figures.add("SessionStart after INDEX.md changed", each.run(hook, copy, stdin=event))
                # A hand edit (or a pull) changed it: nothing lh kept can vouch for it.
                with open(copy / MEMORY_DIR / "INDEX.md", "a", encoding="utf-8", newline="\n") as handle:
                    handle.write(f"\nEdited by hand, turn {turn}.\n")
                figures.add("SessionStart after a hand edit of INDEX.md", each.run(hook, copy, stdin=event))
        for copy in copies:
            shutil.rmtree(copy, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)
    return every


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
        "query right after a query",
        "bare (doctor)",
        "doctor",
        "doctor after a write",
        "lint",
        "import",
        "cold index",
        "raw tiktoken",
        "bare (hook)",
        "SessionStart, warm",
        "SessionStart after INDEX.md changed",
        "SessionStart after a hand edit of INDEX.md",
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
        ("query right after a query / bare", "query right after a query", "bare (query)", False),
        ("cold index / raw tiktoken", "cold index", "raw tiktoken", False),
        ("SessionStart after INDEX.md changed / bare", "SessionStart after INDEX.md changed", "bare (hook)", False),
        (
            "SessionStart after a hand edit / bare",
            "SessionStart after a hand edit of INDEX.md",
            "bare (hook)",
            False,
        ),
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
        f" hooks {args.hook_repeat}, import {args.import_repeat}); peak RSS is the largest of the runs.",
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
    parser.add_argument("--import-repeat", type=int, default=1, help="runs per import figure (default 1)")
    parser.add_argument("--import-max", type=parse_sizes, default=[100_000], help="import only up to this size")
    parser.add_argument("--json", type=Path, help="also write every sample as JSON to this file")
    parser.add_argument(
        "--baseline", type=Path, help="another source tree, measured in the same loops (e.g. a checkout of main)"
    )
    parser.add_argument("--memories", type=Path, help="build each memory once into this folder and reuse it")
    parser.add_argument(
        "--only",
        type=parse_groups,
        default=ROW_GROUPS,
        help=f"measure only these groups of rows, comma-separated (default all: {','.join(ROW_GROUPS)})",
    )
    args = parser.parse_args(argv)
    args.lint_max, args.import_max = args.lint_max[-1], args.import_max[-1]
    repos = [args.repo.resolve(), *([args.baseline.resolve()] if args.baseline else [])]
    work = Path(tempfile.mkdtemp(prefix="lh-bench-scale-"))
    runners = [Runner(repo, work) for repo in repos]
    loads: list[tuple[float, ...]] = []
    results: list[list[Figures]] = [[] for _ in runners]
    try:
        runners[0].bare(work)
        for number, size in enumerate(args.sizes):
            loads.append(os.getloadavg())
            for mine, figures in zip(results, measure(runners, work, size, args, smallest=number == 0), strict=True):
                mine.append(figures)
            for repo, mine in zip(repos, results, strict=True):  # so far, in case a later size is cut short
                log(report(mine, repo, args, [*loads, os.getloadavg()]))
        loads.append(os.getloadavg())
    except BenchError as error:
        print(f"bench_scale: {error}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n\n".join(report(mine, repo, args, loads) for repo, mine in zip(repos, results, strict=True)))
    if args.json:
        data = {
            "loads": loads,
            "trees": {
                str(repo): {
                    str(f.size): {
                        k: [[round(s.ms, 2), round(s.cpu_ms, 2), round(s.rss_mb, 1)] for s in v]
                        for k, v in f.samples.items()
                    }
                    for f in mine
                }
                for repo, mine in zip(repos, results, strict=True)
            },
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    return 0


def parse_groups(text: str) -> tuple[str, ...]:
    groups = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [group for group in groups if group not in ROW_GROUPS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown group(s) {', '.join(unknown)}; choose from {', '.join(ROW_GROUPS)}")
    return groups


if __name__ == "__main__":
    raise SystemExit(main())
