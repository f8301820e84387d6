"""Mutation score of each core module against its own tests (run by `nox -s mutation`).

For each module in MODULES, a copy of the project is made in a temporary folder with a
`[tool.mutmut]` table that mutates that module alone and runs only its test files; mutmut
changes one thing at a time (a flipped comparison, an off-by-one, a negated condition, a
deleted call) and runs the tests that cover it. A mutant no test covers counts as surviving.
Only tests that call the module in the test process can kill its mutants: an `lh` subprocess
imports the installed package, not the mutated copy, so the score is a floor. Prints one row
per module and exits 1 when a module is under its floor.

    python tests/mutation.py [--keep] [MODULE ...]      # e.g. memory/rules.py

With --keep the copies stay, and their folders are printed: `mutmut show NAME` there shows the
change a surviving mutant made.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = 0.80
# Core module (under src/lean_harness) -> the test files that specify it.
MODULES: dict[str, tuple[str, ...]] = {
    "memory/rules.py": ("test_rules.py", "test_shard.py"),
    "memory/shard.py": ("test_shard.py", "test_rules.py"),
    "memory/compaction/compact.py": ("test_compact.py",),
    "memory/index.py": ("test_index.py",),
    "memory/search/search.py": ("test_search.py", "test_search_oracle.py", "test_thesaurus.py"),
    "memory/search/thesaurus.py": ("test_thesaurus.py",),
    "scanning/credentials.py": ("test_credentials.py", "test_credentials_edges.py"),
    "scanning/fold.py": ("test_fold.py", "test_directives.py"),
    "memory/search/segment.py": ("test_segment.py", "test_search.py"),
}
_STATUS = re.compile(r"^\s*(\S+): (killed|survived|no tests|timeout|suspicious|skipped|not checked|segfault)")


def score(module: str, tests: tuple[str, ...], keep: bool = False) -> tuple[int, int, list[str]]:
    """(killed, total, surviving mutant names) for one module."""
    temp = tempfile.mkdtemp(prefix="lh-mutation-")
    try:
        work = Path(temp) / "project"
        if keep:
            print(f"{module}: {work}", file=sys.stderr)
        shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(".git", ".nox", ".venv", "mutants", "__pycache__"))
        others = sorted(
            p.relative_to(work).as_posix()
            for p in (work / "src").rglob("*.py")
            if p.relative_to(work / "src/lean_harness").as_posix() != module
        )
        test_paths = [f"tests/{t}" for t in tests if (work / "tests" / t).exists()]
        table = "\n".join(
            [
                "",
                "[tool.mutmut]",
                'paths_to_mutate = ["src/"]',
                "do_not_mutate = [" + ", ".join(f'"{p}"' for p in others) + "]",
                "tests_dir = ["
                + ", ".join(f'"{p}"' for p in [*test_paths, "tests/conftest.py", "tests/support.py"])
                + "]",
                'also_copy = ["benchmarks/"]',  # tests read the secret corpora and their makers there
                "",
            ]
        )
        pyproject = work / "pyproject.toml"
        pyproject.write_text(pyproject.read_text("utf-8") + table, encoding="utf-8")
        env = dict(os.environ)
        subprocess.run(["mutmut", "run"], cwd=work, env=env, capture_output=True, check=False)
        results = subprocess.run(
            ["mutmut", "results", "--all", "true"], cwd=work, env=env, capture_output=True, text=True, check=False
        )
    finally:
        if not keep:
            shutil.rmtree(temp, ignore_errors=True)
    killed, survivors, total = 0, [], 0
    for line in results.stdout.splitlines():
        match = _STATUS.match(line)
        if not match:
            continue
        total += 1
        if match.group(2) in ("killed", "timeout", "segfault"):
            killed += 1
        else:
            survivors.append(f"{match.group(1)} ({match.group(2)})")
    return killed, total, survivors


def main(argv: list[str]) -> int:
    keep = "--keep" in argv
    chosen = [a for a in argv if a != "--keep"] or list(MODULES)
    unknown = [m for m in chosen if m not in MODULES]
    if unknown:
        print(f"not a core module: {', '.join(unknown)}; choose from {', '.join(MODULES)}", file=sys.stderr)
        return 2
    failed = False
    rows = []
    for module in chosen:
        killed, total, survivors = score(module, MODULES[module], keep)
        share = killed / total if total else 0.0
        failed |= share < FLOOR
        rows.append((module, killed, total, share))
        for name in survivors:
            print(f"  survived: {name}", file=sys.stderr)
    print("| module | killed | mutants | score |")
    print("|---|---|---|---|")
    for module, killed, total, share in rows:
        print(f"| {module} | {killed} | {total} | {share:.0%} |")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
