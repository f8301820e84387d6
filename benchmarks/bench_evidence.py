"""Time `lh memory verify` on 10k entries citing 1,000 line ranges; print a Markdown table.

Two kinds of cited code, built in throwaway projects from a fixed seed:

- synthetic: 200 generated source files of 50 to 1,500 lines;
- this repository: every `*.py` file under `src/` and `tests/` of lean-harness itself, copied
  as it is, which the benchmark was not designed against.

In each project, 10,000 entries are written straight into the shards (the entry format of
memory/shard.py), 1,000 of them with one reference each to a random range of 1 to 12 lines in
a random cited file, anchored with memory/evidence/evidence.py. Measured, as whole `lh` processes, with
the median of several runs and the compared commands in one loop:

- `verify`, cold: the evidence cache deleted, so every cited file is read and hashed;
- `verify`, warm: nothing changed since the last verify, so only stat data is read;
- `verify` after edits: lines inserted at the top of 10% of the cited files (their references
  move, found by searching the file) and one cited line changed in another 5%;
- `lh memory status` and `python -c pass`, for the cost of a process and of reading the memory;
- the check alone, in-process (`stale.report`: every reference, with and without the cache).

Run `python benchmarks/bench_evidence.py --help` for the options.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.memory.evidence import evidence
from lean_harness.memory.shard import Entry, render_entry

SEED = 20261201
REPO = Path(__file__).resolve().parents[1]
SHARDS = ("seed", "failures", "corrections", "insights", "conventions", "quirks")
# Processes compile lean-harness once and then run from cached bytecode, as an installed package does.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "lh-bench-evidence-pycache")
WORDS = [
    "lock",
    "cache",
    "retry",
    "fsync",
    "rename",
    "proxy",
    "token",
    "shard",
    "merge",
    "flaky",
    "windows",
    "ci",
    "timeout",
    "parser",
    "index",
]


def synthetic_tree(root: Path, rng: random.Random, files: int = 200) -> list[str]:
    """Generated source files; their paths relative to root."""
    paths = []
    for number in range(files):
        path = f"pkg/mod{number // 20}/file{number}.py"
        lines = [
            f"    {rng.choice(WORDS)}_{n} = compute({rng.randint(0, 10**6)}, {rng.choice(WORDS)!r})"
            for n in range(rng.randint(50, 1500))
        ]
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("\n".join(lines) + "\n", "utf-8")
        paths.append(path)
    return paths


def repository_tree(root: Path) -> list[str]:
    """This repository's Python files, copied; their paths relative to root."""
    paths = []
    for source in sorted([*(REPO / "src").rglob("*.py"), *(REPO / "tests").rglob("*.py")]):
        relative = source.relative_to(REPO).as_posix()
        if source.stat().st_size < 40:
            continue
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, root / relative)
        paths.append(relative)
    return paths


def build(root: Path, kind: str, entries: int, cited: int, rng: random.Random) -> list[str]:
    """A project with `entries` entries, `cited` of them with a reference; the cited files."""
    lh("init", cwd=root)
    paths = synthetic_tree(root, rng) if kind == "synthetic" else repository_tree(root)
    citing = set(rng.sample(range(entries), cited))
    blocks: dict[str, list[str]] = {name: [] for name in SHARDS}
    used: set[str] = set()
    for number in range(entries):
        shard = SHARDS[number % len(SHARDS)]
        text = f"note {number}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 40)))
        extra: tuple[tuple[str, str], ...] = ()
        if number in citing:
            path, anchor = cite(root, paths, rng)
            used.add(path)
            extra = (("refs", anchor.stored()),)
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_700_000_000 + number * 60))
        blocks[shard].append(render_entry(Entry(f"e{number:06d}", created, text, (), extra)))
    for name, items in blocks.items():
        path = root / ".agents" / "memory" / f"{name}.md"
        path.write_text(f"# {name}\n\n" + "\n".join(items), "utf-8")
    lh("memory", "index", cwd=root)
    return sorted(used)


def cite(root: Path, paths: list[str], rng: random.Random) -> tuple[str, evidence.Anchor]:
    """A random range of 1 to 12 lines in a random file, anchored (ranges lh refuses are skipped)."""
    while True:
        path = rng.choice(paths)
        total = len(evidence.split_lines((root / path).read_bytes()))
        size = rng.randint(1, min(12, total))
        start = rng.randint(1, total - size + 1)
        try:
            return path, evidence.anchor(root, f"{path}#L{start}-{start + size - 1}")
        except LhError:
            continue  # lines that look like a credential (the scanner's test cases) are not cited


def edit(root: Path, paths: list[str], rng: random.Random) -> None:
    """Insert lines at the top of 10% of the cited files and change a line in another 5%."""
    chosen = rng.sample(paths, len(paths) * 15 // 100)
    for number, path in enumerate(chosen):
        file = root / path
        lines = file.read_text("utf-8").splitlines(keepends=True)
        if number % 3 == 2:
            at = rng.randrange(len(lines))
            lines[at] = "# changed\n"
        else:
            lines[:0] = ["# inserted\n"] * rng.randint(1, 30)
        file.write_text("".join(lines), "utf-8")


def lh(*args: str, cwd: Path, ok: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lean_harness", *args], cwd=cwd, capture_output=True, check=False, env=CHILD_ENV
    )
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode not in ok:
        raise SystemExit(f"lh {' '.join(args)} exited {done.returncode}: {done.stderr.decode()}")
    return elapsed


def bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, env=CHILD_ENV)
    return (time.perf_counter() - start) * 1000


def measure(root: Path, paths: list[str], repeat: int, rng: random.Random) -> dict[str, float]:
    cache = root / ".agents" / ".cache" / "lh" / "evidence"
    times: dict[str, list[float]] = {k: [] for k in ("bare", "status", "cold", "warm")}
    time.sleep(2.2)  # let the cited files settle, so the cache may trust their stat data
    for _ in range(repeat):
        times["bare"].append(bare())
        times["status"].append(lh("memory", "status", cwd=root))
        cache.unlink(missing_ok=True)
        times["cold"].append(lh("memory", "verify", cwd=root))
        times["warm"].append(lh("memory", "verify", cwd=root))
    result_inproc = in_process(root, repeat)
    edit(root, paths, rng)
    time.sleep(2.2)
    edited = []
    for _ in range(repeat):
        cache.unlink(missing_ok=True)
        edited.append(lh("memory", "verify", cwd=root, ok=(0, 1)))
    result = {k: statistics.median(v) for k, v in times.items()}
    result["edited"] = statistics.median(edited)
    return {**result, **result_inproc}


def in_process(root: Path, repeat: int) -> dict[str, float]:
    """The check alone, without process start: every reference with the cache, and without it."""
    from lean_harness.config import load
    from lean_harness.memory.evidence import stale
    from lean_harness.memory.handle import open_memory

    memory = open_memory(load(root))
    cache = root / ".agents" / ".cache" / "lh" / "evidence"
    warm, cold = [], []
    with memory.reading():
        stale.report(memory)
        for _ in range(repeat):
            start = time.perf_counter()
            stale.report(memory)
            warm.append((time.perf_counter() - start) * 1000)
            cache.unlink(missing_ok=True)
            start = time.perf_counter()
            stale.report(memory)
            cold.append((time.perf_counter() - start) * 1000)
    return {"report warm": statistics.median(warm), "report cold": statistics.median(cold)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--refs", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{args.entries} entries, {args.refs} with a reference; median of {args.repeat} runs, milliseconds\n")
    print(
        "| cited code | files | python -c pass | status | verify cold | verify warm | verify after edits"
        " | check in-process, cold | warm |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind in ("synthetic", "repository"):
        rng = random.Random(SEED)
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            paths = build(root, kind, args.entries, args.refs, rng)
            m = measure(root, paths, args.repeat, rng)
        print(
            f"| {kind} | {len(paths)} | {m['bare']:.0f} | {m['status']:.0f} | {m['cold']:.0f} | {m['warm']:.0f}"
            f" | {m['edited']:.0f} | {m['report cold']:.0f} | {m['report warm']:.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
