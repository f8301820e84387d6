"""Measure lean-harness against its supported envelope (adr/0035); print one Markdown table.

Every figure is a whole process started as a user or a client starts it: the `lh` script
installed beside the interpreter that runs this file, or `sh hooks/lh-hook EVENT` for the hooks.
Each figure is the median of `--repeat` runs, and each ratio is taken against a bare
`python3 -c pass` timed in the same loop, so a busy machine slows both sides.

The memories are built with `lh memory import` from a jsonl file of generated notes (a fixed
seed, so every run builds the same memory), which also times the import itself.

    python benchmarks/bench_envelope.py            # the supported size, 5,000 entries
    python benchmarks/bench_envelope.py --large    # and 100,000 entries (several minutes)
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
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEED = 20261201
SHARDS = ("failures", "insights", "conventions", "quirks", "corrections", "seed")
SUBJECTS = (
    "the lock file",
    "the config loader",
    "the HTTP client",
    "the scheduler",
    "migrations",
    "the renderer",
    "the upload worker",
    "the metrics exporter",
    "the plugin loader",
    "the retry policy",
    "the search index",
    "the mailer",
    "the thumbnailer",
    "the cookie jar",
    "the rate limiter",
)
PLACES = ("on Windows", "on macOS arm64", "in CI", "under WSL2", "on Python 3.13", "in the container", "")
EVENTS = (
    "hangs",
    "times out after 30 s",
    "fails with PermissionError",
    "leaks file handles",
    "raises UnicodeDecodeError",
    "returns stale data",
    "double-counts retries",
    "drops the last line",
)
FIXES = (
    "open it in binary mode",
    "pin the dependency to the previous minor",
    "set the timeout from the config, not a constant",
    "close the handle in a finally block",
    "decode with errors='replace' and log the offset",
    "invalidate the cache on write",
    "count attempts once, in the caller",
    "flush before closing",
)


@dataclass(frozen=True)
class Row:
    """One measured figure and the target it is held to."""

    name: str
    value: float  # seconds, a ratio or megabytes, as `unit` says
    unit: str
    target: float | None = None

    @property
    def passed(self) -> bool:
        return self.target is None or self.value <= self.target

    def cells(self) -> str:
        shown = f"{self.value * 1000:.0f} ms" if self.unit == "s" else f"{self.value:.2f}{self.unit}"
        if self.target is None:
            return f"| {self.name} | {shown} | |"
        limit = f"{self.target * 1000:.0f} ms" if self.unit == "s" else f"{self.target:g}{self.unit}"
        return f"| {self.name} | {shown} | <= {limit} {'ok' if self.passed else 'MISSED'} |"


def notes(count: int) -> list[dict[str, object]]:
    """`count` distinct, varied notes as jsonl records, the same for every run."""
    pick = random.Random(SEED)
    records = []
    for number in range(count):
        subject, place = pick.choice(SUBJECTS), pick.choice(PLACES)
        text = f"{subject} {pick.choice(EVENTS)} {place}".replace("  ", " ").strip()
        text = f"{text[0].upper()}{text[1:]} (case {number}): {pick.choice(FIXES)}."
        if pick.random() < 0.5:
            text += f" Seen in {pick.choice(SUBJECTS)} too; {pick.choice(FIXES)}."
        record: dict[str, object] = {"shard": SHARDS[number % len(SHARDS)], "text": text}
        if pick.random() < 0.3:
            record["tags"] = [pick.choice(("windows", "ci", "flaky", "perf", "security"))]
        records.append(record)
    return records


def lh_command() -> list[str]:
    """The installed `lh` beside this interpreter, else `python -m lean_harness`."""
    script = Path(sys.executable).with_name("lh")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lean_harness"]


def run(argv: Sequence[str], cwd: Path, env: dict[str, str], stdin: str = "") -> float:
    """Wall seconds of one process, which must exit 0 or 1."""
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, err = child.communicate(stdin.encode())
    elapsed = time.perf_counter() - start
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {child.returncode}: {err.decode(errors='replace').strip()}")
    return elapsed


def peak_of(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> float:
    """Peak resident megabytes of one process, measured in a fresh parent so no sibling counts."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1]) / 1024


def build(root: Path, count: int, lh: list[str], env: dict[str, str]) -> float:
    """A fresh project holding `count` notes; the seconds `lh memory import` took."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*lh, "init"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(
        [*lh, "config", "set", "memory.tokenBudget", "100000000"],
        cwd=root,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    source = root.parent / f"notes-{count}.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in notes(count)), encoding="utf-8")
    return run([*lh, "memory", "import", str(source)], root, env)


def median_of(repeat: int, *commands: tuple[Sequence[str], Path, dict[str, str], str]) -> list[float]:
    """The median wall time of each command, the commands run one after the other in each round."""
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat):
        for slot, (argv, cwd, env, stdin) in enumerate(commands):
            times[slot].append(run(argv, cwd, env, stdin))
    return [statistics.median(values) for values in times]


def measure(root: Path, count: int, lh: list[str], env: dict[str, str], repeat: int, large: bool) -> list[Row]:
    """The envelope's figures on a memory of `count` entries."""
    label = f"{count:,}"
    import_s = build(root, count, lh, env)
    bare = [sys.executable, "-c", "pass"]
    query = [*lh, "memory", "get", "--query", "windows lock hangs"]
    run(query, root, env)  # the search caches, built once
    rows = [Row(f"import of {label} records", import_s, "s", 60.0 if large else 5.0)]
    if not large:
        put_number = iter(range(10**6))

        def put() -> list[str]:
            return [*lh, "memory", "put", "insights", f"Benchmark note {next(put_number)} about the lock file."]

        base, warm, status = median_of(
            repeat, (bare, root, env, ""), (query, root, env, ""), ([*lh, "memory", "status"], root, env, "")
        )
        puts, after = [], []
        for _ in range(repeat):
            puts.append(run(put(), root, env))
            after.append(run(query, root, env))
        put_s, after_s = statistics.median(puts), statistics.median(after)
        rows += [
            Row("bare `python3 -c pass`", base, "s"),
            Row("put / bare", put_s / base, "x", 8.0),
            Row("warm query / bare", warm / base, "x", 8.0),
            Row("status / bare", status / base, "x", 8.0),
            Row("first query after a write / warm query", after_s / warm, "x", 2.0),
        ]
        doctor, lint = median_of(
            max(3, repeat // 3), ([*lh, "doctor"], root, env, ""), ([*lh, "memory", "lint"], root, env, "")
        )
        rows += [Row("doctor", doctor, "s", 2.0), Row("lint", lint, "s", 2.0)]
        rows += hooks(root, env, repeat, base)
    else:
        (warm,) = median_of(3, (query, root, env, ""))
        run([*lh, "memory", "put", "insights", "One more note about the lock file."], root, env)
        after = run(query, root, env)
        (doctor,) = median_of(1, ([*lh, "doctor"], root, env, ""))
        run([*lh, "memory", "put", "insights", "Yet one more note about the lock file."], root, env)
        rows += [
            Row(f"query at {label}", warm, "s", 2.0),
            Row(f"first query after a write at {label}", after, "s", 3.0),
            Row(f"peak memory of that query at {label}", peak_of(query, root, env), " MB", 500.0),
            Row(f"doctor at {label}", doctor, "s", 15.0),
        ]
    return rows


def hooks(root: Path, env: dict[str, str], repeat: int, base: float) -> list[Row]:
    """Each hook the plugin declares, as the clients start it, silent (nothing changed)."""
    declared = json.loads((REPO / "hooks" / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    events = sorted({h["command"].rsplit(" ", 1)[-1] for group in declared.values() for g in group for h in g["hooks"]})
    hook_env = {**env, "CLAUDE_PLUGIN_ROOT": str(REPO)}
    payload = json.dumps({"session_id": "bench", "cwd": str(root)})
    launcher = ["sh", str(REPO / "hooks" / "lh-hook")]
    for event in events:
        run([*launcher, event], root, hook_env, payload)  # its first run may write its state
    # A real prompt that no note matches: the hook reads its words and the map, and prints nothing.
    asked = json.dumps({"session_id": "bench", "cwd": str(root), "prompt": "Please rename the checkout button."})
    runs = [([*launcher, event], root, hook_env, payload) for event in events]
    medians = median_of(repeat, *runs, ([*launcher, "prompt-submit"], root, hook_env, asked))
    names = [*events, "prompt-submit, a prompt no note matches"]
    return [
        Row(f"hook {name} / bare", median / base, "x", 3.0 if name == "session-start" else 1.5)
        for name, median in zip(names, medians, strict=True)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--entries", type=int, default=5000, help="the supported size (default 5000)")
    parser.add_argument("--repeat", type=int, default=15, help="runs of each timed figure (default 15)")
    parser.add_argument("--large", action="store_true", help="also measure 100,000 entries")
    args = parser.parse_args(argv)
    lh = lh_command()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    work = Path(tempfile.mkdtemp(prefix="lh-envelope-"))
    try:
        rows = measure(work / "supported", args.entries, lh, env, args.repeat, large=False)
        if args.large:
            rows += measure(work / "large", 100_000, lh, env, args.repeat, large=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"lean-harness envelope; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; medians of {args.repeat}.\n")
    print("| figure | measured | target |")
    print("|---|---|---|")
    for row in rows:
        print(row.cells())
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
