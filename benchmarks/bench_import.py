"""Share of memory files whose text can be found after `lh memory import`, per memory-md folder.

Usage: python benchmarks/bench_import.py FOLDER... (each FOLDER holds memory folders, one per
subfolder, or is one itself: a folder with a MEMORY.md or Markdown files). For each memory
folder a throwaway project is initialised, the folder imported with `--format memory-md`, and
for each Markdown file three of its longest words (from the body and the description line of
its frontmatter) are asked of `lh memory get --query`, with `--min-score 0` and no token cap
(whether the text is there, not how it ranks); the file counts as findable when each word is
in one of the results. A MEMORY.md whose lines are only headings and links has nothing of its
own to find and is not counted. The `lh` that runs is the one on the interpreter's path: run it
once with each version's sources first on PYTHONPATH to compare.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

_WORD_RE = re.compile(r"[^\W_]{4,}")
_KEEP_RE = re.compile(r"\s*description:(.*)")
_ONLY_INDEX_RE = re.compile(r"\s*(?:#.*|(?:[-*+]|\d+[.)])\s+\[[^\]]*\]\([^)]*\).*)?")


def lh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "lean_harness", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def words(path: Path) -> list[str]:
    """Three of the longest words of a memory file, or [] when it has nothing of its own."""
    try:
        text = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError:
        text = ""
    lines = text.split("\n")
    kept: list[str] = []
    if lines and lines[0].strip() == "---" and "---" in [line.strip() for line in lines[1:]]:
        end = 1 + [line.strip() for line in lines[1:]].index("---")
        kept += [m.group(1) for m in map(_KEEP_RE.match, lines[1:end]) if m]
        lines = lines[end + 1 :]
    if path.name == "MEMORY.md":
        lines = [line for line in lines if not _ONLY_INDEX_RE.fullmatch(line)]
    found = _WORD_RE.findall("\n".join(kept + lines))
    ranked = sorted(dict.fromkeys(found), key=lambda w: (-len(w), found.index(w)))
    return ranked[:3]


def measure(folder: Path) -> tuple[int, int, int]:
    """(files with words, files found, import exit code) for one memory folder."""
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        lh("init", cwd=project)
        code = lh("memory", "import", str(folder), "--format", "memory-md", cwd=project).returncode
        counted = found = 0
        for path in sorted(folder.rglob("*.md")):
            query = words(path)
            if not query:
                continue
            counted += 1
            every = ("--limit", "20", "--min-score", "0", "--max-tokens", "1000000", "--json")
            result = lh("memory", "get", "--query", " ".join(query), *every, cwd=project)
            try:
                texts = [r["text"].lower() for r in json.loads(result.stdout).get("results", [])]
            except ValueError:
                texts = []
            found += all(any(w.lower() in t for t in texts) for w in query)
        return counted, found, code


def main(argv: list[str]) -> int:
    folders: list[Path] = []
    for arg in argv:
        root = Path(arg).resolve()
        is_one = (root / "MEMORY.md").is_file() or any(root.glob("*.md"))
        folders += [root] if is_one else sorted(p for p in root.iterdir() if p.is_dir())
    print("| folder | files | findable | share | import exit |")
    print("|---|---:|---:|---:|---:|")
    total = hits = 0
    for folder in folders:
        counted, found, code = measure(folder)
        total, hits = total + counted, hits + found
        share = f"{found / counted:.0%}" if counted else "-"
        print(f"| {folder.name} | {counted} | {found} | {share} | {code} |")
    print(f"| all | {total} | {hits} | {hits / total:.0%} | |" if total else "| all | 0 | 0 | - | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
