"""Share of memory files whose text can be found after a plain `lh memory import DIR`, per layout.

Usage: python benchmarks/bench_import.py [--format FMT] SAMPLE... where each SAMPLE is a folder
of layout folders, each holding memory folders (`SAMPLE/claude-memory/some-repo/`), or one
memory folder (a folder with Markdown files in it). For each memory folder a throwaway project is
initialised and the folder imported (`--format auto` unless told otherwise); for each Markdown
file three of its longest words (from the body and the description line of its frontmatter) are
asked of `lh memory get --query`, with `--min-score 0` and no token cap (whether the text is
there, not how it ranks); the file counts as findable when each word is in one of the results.
A MEMORY.md or index.md whose lines are only headings and links has nothing of its own to find
and is not counted. A folder counts as empty when it has files to find and nothing was imported
from it; a traceback is any import whose standard error holds one. The `lh` that runs is the one
on the interpreter's path: run it once with each version's sources first on PYTHONPATH to compare.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

_WORD_RE = re.compile(r"[^\W_]{4,}")
_KEEP_RE = re.compile(r"\s*description:(.*)")
_ONLY_INDEX_RE = re.compile(r"\s*(?:#.*|(?:[-*+]|\d+[.)])\s+\[[^\]]*\]\([^)]*\).*)?")


def lh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "lean_harness", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def words(path: Path) -> list[str]:
    """Three of the longest words of a memory file, or [] when it has nothing of its own."""
    text = path.read_bytes().decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    kept: list[str] = []
    if lines and lines[0].strip() == "---" and "---" in [line.strip() for line in lines[1:]]:
        end = 1 + [line.strip() for line in lines[1:]].index("---")
        kept += [m.group(1) for m in map(_KEEP_RE.match, lines[1:end]) if m]
        lines = lines[end + 1 :]
    if path.name.lower() in ("memory.md", "index.md"):
        lines = [line for line in lines if not _ONLY_INDEX_RE.fullmatch(line)]
    found = _WORD_RE.findall("\n".join(kept + lines))
    ranked = sorted(dict.fromkeys(found), key=lambda w: (-len(w), found.index(w)))
    return ranked[:3]


def measure(folder: Path, fmt: str) -> tuple[int, int, bool, bool]:
    """(files with words, files found, nothing imported, a traceback) for one memory folder."""
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        lh("init", cwd=project)
        result = lh("memory", "import", str(folder), "--format", fmt, "--json", cwd=project)
        traceback = "Traceback (most recent call last)" in result.stderr
        try:
            added = [o for o in json.loads(result.stdout)["outcomes"] if o["action"] == "added"]
        except (ValueError, KeyError, TypeError):
            added = []
        counted = found = 0
        for path in sorted(folder.rglob("*.md")):
            query = words(path)
            if not query:
                continue
            counted += 1
            every = ("--limit", "20", "--min-score", "0", "--max-tokens", "1000000", "--json")
            answer = lh("memory", "get", "--query", " ".join(query), *every, cwd=project)
            try:
                texts = [r["text"].lower() for r in json.loads(answer.stdout).get("results", [])]
            except ValueError:
                texts = []
            found += all(any(w.lower() in t for t in texts) for w in query)
        return counted, found, counted > 0 and not added, traceback


def _is_memory_folder(path: Path) -> bool:
    return any(path.glob("*.md"))


def main(argv: list[str]) -> int:
    fmt = "auto"
    if argv[:1] == ["--format"]:
        fmt, argv = argv[1], argv[2:]
    folders: list[tuple[str, Path]] = []
    for arg in argv:
        root = Path(arg).resolve()
        if _is_memory_folder(root):
            folders.append((root.parent.name, root))
            continue
        for layout in sorted(p for p in root.iterdir() if p.is_dir()):
            folders += [(layout.name, p) for p in sorted(layout.iterdir()) if p.is_dir()]
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    print("| layout | folder | files | findable | share | empty | traceback |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for layout, folder in folders:
        counted, found, empty, traceback = measure(folder, fmt)
        for index, value in enumerate((1, counted, found, empty, traceback)):
            totals[layout][index] += int(value)
        share = f"{found / counted:.0%}" if counted else "-"
        print(f"| {layout} | {folder.name} | {counted} | {found} | {share} | {int(empty)} | {int(traceback)} |")
    print()
    print("| layout | folders | files | findable | share | empty folders | tracebacks |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    every = [0, 0, 0, 0, 0]
    for layout, (n, counted, found, empty, traceback) in sorted(totals.items()):
        every = [a + b for a, b in zip(every, (n, counted, found, empty, traceback), strict=True)]
        share = f"{found / counted:.1%}" if counted else "-"
        print(f"| {layout} | {n} | {counted} | {found} | {share} | {empty} | {traceback} |")
    n, counted, found, empty, traceback = every
    share = f"{found / counted:.1%}" if counted else "-"
    print(f"| all | {n} | {counted} | {found} | {share} | {empty} | {traceback} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
