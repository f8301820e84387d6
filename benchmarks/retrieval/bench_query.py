"""Time a warm `lh memory get --query` against a bare interpreter start; prints a Markdown table.

    python3 benchmarks/retrieval/bench_query.py [--sizes 1000,10000] [--repeat 15] [--src DIR ...]

Each size gets a project filled with the synthetic notes of benchmarks/bench_memory.py. One
query builds the cached search index; then every timed query is a fresh process beside a fresh
`python -c pass`, interleaved so both see the same machine load: the installed `lh` console
script, as users and agents run it, and `python -m lean_harness`, which also loads runpy. `--src`
names source folders to compare (default: this checkout's `src`; the script runs the first module
found on PYTHONPATH, set to each in turn); each gets its own copy of the project, since index
caches of other formats would rebuild each other.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "src"))

import bench_memory  # noqa: E402


def wall(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> float:
    return timed(argv, cwd, env)[0]


def timed(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) ms of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return elapsed, cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="entry counts (default 1000,10000)")
    parser.add_argument("--repeat", type=int, default=15, help="timed queries per size and source (default 15)")
    parser.add_argument("--src", action="append", type=Path, default=[], help="a source folder to time")
    args = parser.parse_args(argv)
    sources = [s.resolve() for s in args.src] or [ROOT / "src"]
    queries = [
        json.loads(line)["query"] for line in (HERE / "heldout" / "queries.jsonl").read_text("utf-8").splitlines()
    ]
    script = str(bench_memory.find_lh())
    entries = {"lh": [script], "python -m": [sys.executable, "-m", "lean_harness"]}
    print("| entries | source | run as | query median ms | bare `python -c pass` median ms | ratio", end="")
    print(" | CPU ms query / bare | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        bytecode = Path(folder) / "bytecode"
        for size in (int(s) for s in args.sizes.split(",")):
            template = Path(folder) / f"m{size}"
            bench_memory.CHILD_ENV = bench_memory.child_environment(bytecode)
            bench_memory.CHILD_ENV["PYTHONPATH"] = str(sources[0])
            bench_memory.build(template, size, bench_memory.find_lh())
            projects, envs = [], []
            for number, source in enumerate(sources):
                project = Path(folder) / f"m{size}-{number}"
                shutil.copytree(template, project, symlinks=True)
                env = dict(bench_memory.CHILD_ENV, PYTHONPATH=str(source))
                command = [sys.executable, "-m", "lean_harness", "memory", "get", "--query"]
                wall([*command, "warm up"], project, env)  # builds the cached search index
                projects.append(project)
                envs.append(env)
            samples: dict[tuple[int, str], list[tuple[float, float]]] = {
                (n, way): [] for n in range(len(sources)) for way in entries
            }
            bare: list[tuple[float, float]] = []
            for turn in range(args.repeat):
                text = queries[(turn * 7) % len(queries)]
                bare.append(timed([sys.executable, "-c", "pass"], projects[0], envs[0]))
                for number in range(len(sources)):
                    for way, start in entries.items():
                        argv = [*start, "memory", "get", "--query", text]
                        samples[number, way].append(timed(argv, projects[number], envs[number]))
            base = statistics.median(w for w, _ in bare)
            base_cpu = statistics.median(c for _, c in bare)
            for (number, way), taken in samples.items():
                value = statistics.median(w for w, _ in taken)
                cpu = statistics.median(c for _, c in taken)
                source = sources[number]
                label = os.path.relpath(source, ROOT) if source.is_relative_to(ROOT) else str(source)
                print(
                    f"| {size:,} | {label} | {way} | {value:.0f} | {base:.0f} | {value / base:.1f}x"
                    f" | {cpu:.0f} / {base_cpu:.0f} | {cpu / base_cpu:.1f}x |"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
