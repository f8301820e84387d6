"""What the usage record costs: a query and a session start with `memory.recordUsage` on and off.

Two copies of one memory (built as bench_memory.py builds its memories), one with the record
turned off in its config. In each round every figure runs once, in a shuffled order: `lh memory
get --query` in each copy, and the session-start hook as hooks/hooks.json runs it
(`sh hooks/lh-hook session-start`, its JSON event on stdin) in each copy. The record of the
copy that keeps one grows as the runs go, folding past its limit. Medians, and on/off ratios
taken in the same run; target: on within 5% of off (adr/0038).

    PYTHONPATH=src python benchmarks/bench_usage.py [--entries 1000] [--repeat 40]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_memory

REPO = Path(__file__).resolve().parents[1]
TARGET = 1.05
QUERIES = ("lock file hangs on Windows", "retry policy times out", "stale cache after write", "upload worker leaks")


def timed(argv: Sequence[str], cwd: Path, env: dict[str, str], stdin: str = "") -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, input=stdin.encode(), stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def record_calls(root: Path, count: int = 3000) -> str:
    """The median and slowest of `count` calls of usage.record (the slowest folds the record)."""
    from lean_harness import usage

    times = []
    for _ in range(count):
        start = time.perf_counter()
        usage.record(root, "query", [("failures", "a1b2c3d4e5f6"), ("quirks", "0a1b2c3d4e5f")], query="lock")
        times.append(time.perf_counter() - start)
    return f"median {statistics.median(times) * 1e6:.0f} us, slowest {max(times) * 1000:.1f} ms"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--entries", type=int, default=1000, help="entries in the memory (default 1000)")
    parser.add_argument("--repeat", type=int, default=40, help="rounds (default 40)")
    args = parser.parse_args(argv)
    lh = bench_memory.find_lh()
    work = Path(tempfile.mkdtemp(prefix="lh-bench-usage-"))
    try:
        on, off = work / "on", work / "off"
        bench_memory.build(on, args.entries, lh)
        shutil.copytree(on, off, symlinks=True)
        subprocess.run([str(lh), "config", "set", "memory.recordUsage", "false"], cwd=off, check=True)
        env = bench_memory.child_environment(work / "pycache")
        env["CLAUDE_PLUGIN_ROOT"] = str(REPO)
        hook = ["sh", str(REPO / "hooks" / "lh-hook"), "session-start"]
        for root in (on, off):
            subprocess.run([str(lh), "memory", "index"], cwd=root, check=True, stdout=subprocess.DEVNULL)
            past = time.time() - 10
            os.utime(root / ".agents" / "memory" / "INDEX.md", (past, past))
            timed(hook, root, env, json.dumps({"session_id": "warm", "cwd": str(root)}))
        rng = random.Random(20261202)
        figures: dict[str, list[float]] = {}
        for turn in range(args.repeat):
            query = QUERIES[turn % len(QUERIES)]
            event = json.dumps({"session_id": f"bench-{turn}", "cwd": "{root}"})
            cases = [
                (f"query, record {name}", [str(lh), "memory", "get", "--query", query], root, "")
                for name, root in (("on", on), ("off", off))
            ]
            cases += [
                (f"session-start, record {name}", hook, root, event.replace("{root}", str(root)))
                for name, root in (("on", on), ("off", off))
            ]
            rng.shuffle(cases)
            for name, command, root, stdin in cases:
                figures.setdefault(name, []).append(timed(command, root, env, stdin))
        size = (on / ".agents" / "events.ndjson").stat().st_size
        calls = record_calls(on)
        print(f"Usage record on and off, {args.entries} entries, {args.repeat} rounds, medians; record {size} bytes.\n")
        print("| figure | record on | record off | on / off | target |")
        print("|---|---|---|---|---|")
        failed = False
        for figure in ("query", "session-start"):
            with_record = statistics.median(figures[f"{figure}, record on"])
            without = statistics.median(figures[f"{figure}, record off"])
            ratio = with_record / without
            failed = failed or ratio > TARGET
            verdict = "ok" if ratio <= TARGET else "MISSED"
            shown = f"{with_record * 1000:.1f} ms | {without * 1000:.1f} ms | {ratio:.3f}"
            print(f"| {figure} | {shown} | <= {TARGET} {verdict} |")
        print(f"\nOne `usage.record` call of three entries, in process: {calls}.")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
