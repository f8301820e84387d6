"""What compaction saves, and whether every merged note stays findable; prints a Markdown table.

Two memories, each imported into a throwaway project with `lh memory import`:

- "varied": notes of the kinds a project memory holds, built here with a fixed seed:
  failures (a symptom line, then cause and fix lines), conventions (one or two lines) and
  quirks (one line, sometimes a detail line), with numbers and identifiers that differ
  between otherwise similar notes;
- "retrieval corpus": `benchmarks/retrieval/corpus.jsonl`, written for the search benchmark and
  not designed against compaction: mostly one long line per note.

The budget is set so that each memory is just over its compaction threshold (total = 85% of
the budget), then `lh memory compact` runs. For each memory the table gives the tokens before
and after against the target, how many entries were merged, what the digests cost against their
sources, and findability: for every merged note, `lh memory get --query` with the note's own
first line, and whether its digest is among the first 3 results, and in the answer at all.

Run `python benchmarks/bench_digests.py`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sys
import tempfile
from pathlib import Path

from lean_harness.cli import main

HERE = Path(__file__).resolve().parent
MODULES = ["upload", "scheduler", "auth", "billing", "search", "export", "mailer", "cache", "geocode", "thumbnails"]
RUNNERS = ["the Windows runners", "the arm64 runners", "macOS CI", "Alpine (musl) CI", "the nightly job"]
CAUSES = [
    "the fixture shares one tmp dir between workers",
    "the mock server closes keep-alive connections early",
    "a blocking read runs inside the event loop",
    "the lock file is opened in text mode",
    "the container starts before postgres accepts connections",
]
FIXES = [
    "use tmp_path per test",
    "retry once on ConnectionResetError",
    "move the read to a thread with a timeout",
    "open the lock file with O_BINARY",
    "add a pg_isready wait loop before the migrations",
]
CONVENTIONS = [
    "Run `ruff format` before committing; CI rejects unformatted files in src/ and tests/.",
    "Database migrations live in migrations/NNNN_name.py and are never edited after merge.",
    "Feature flags are read through settings.flags, never from os.environ directly.",
    "Public API changes need a changelog line under Unreleased in CHANGELOG.md.",
    "Tests that touch the network are marked @pytest.mark.network and skipped offline.",
]
QUIRKS = [
    "tar on macOS lacks --wildcards; use gtar from Homebrew in scripts",
    "pip caches wheels by name only, so a rebuilt local wheel needs --no-cache-dir",
    "the corporate proxy strips the Authorization header on redirects",
    "Git Bash on Windows rewrites /c/ paths passed to docker",
    "sqlite in the CI image is 3.31, too old for RETURNING",
]


def varied(seed: int = 14) -> list[dict[str, object]]:
    """Notes of three kinds with similar wordings and different numbers and identifiers."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    stamp = 1_767_225_600  # 2026-01-01
    for number in range(240):
        stamp += rng.randint(600, 20_000)
        created = _utc(stamp)
        kind = rng.choice(["failures", "failures", "conventions", "quirks"])
        module = rng.choice(MODULES)
        if kind == "failures":
            cause, fix = rng.choice(list(zip(CAUSES, FIXES, strict=True)))
            text = (
                f"test_{module}_{rng.choice(['timeout', 'retry', 'cleanup', 'large_input'])} fails on"
                f" {rng.choice(RUNNERS)} (failure {number})\nCause: {cause}.\nFix: {fix}; held for"
                f" {rng.randint(5, 60)} runs."
            )
        elif kind == "conventions":
            text = rng.choice(CONVENTIONS).replace("src/", f"src/{module}/") + f" (agreed in PR #{1000 + number})"
            if rng.random() < 0.4:
                text += "\nReason: reviews stalled on style comments."
        else:
            text = f"{rng.choice(QUIRKS)} (seen in {module}, build {number})"
            if rng.random() < 0.5:
                text += f"\nDetail: reproduced on {rng.choice(RUNNERS)}."
        rows.append({"shard": kind, "text": text, "created": created})
    return rows


def corpus() -> list[dict[str, object]]:
    rows = []
    for line in (HERE / "retrieval" / "corpus.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        rows.append({"shard": record["shard"], "text": record["text"], "created": record["created"]})
    return rows


def _utc(stamp: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def quiet(args: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(args)
    return code, out.getvalue()


def measure(name: str, rows: list[dict[str, object]]) -> str:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.chdir(root)
        assert quiet(["init"])[0] == 0
        source = root / "notes.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
        assert quiet(["memory", "import", str(source)])[0] == 0
        total = json.loads(quiet(["memory", "status", "--json"])[1])["total_tokens"]
        assert quiet(["config", "set", "memory.tokenBudget", str(max(100, total * 100 // 85))])[0] == 0
        code, out = quiet(["memory", "compact", "--json"])
        data = json.loads(out)
        merged = [(d["id"], s["title"], s["id"]) for d in data["digests"] for s in d["sources"]]
        sources = {s["id"] for d in data["digests"] for s in d["sources"]}
        found = anywhere = 0
        archive = {}
        for shard in {d["shard"] for d in data["digests"]}:
            from lean_harness.memory.shard import parse

            for entry in parse((root / ".agents/memory/archive" / f"{shard}.md").read_text("utf-8")).entries:
                archive[entry.id] = entry.text
        for digest, _, key in merged:
            query = archive[key].split("\n")[0]
            _, hits = quiet(["memory", "get", "--query", query, "--json"])
            ranked = [r["id"] for r in json.loads(hits)["results"]]
            found += digest in ranked[:3]
            anywhere += digest in ranked
            if digest not in ranked[:3] and os.environ.get("BENCH_MISSES"):
                print(f"miss: {query[:100]} -> {ranked[:3]}", file=sys.stderr)
        before = sum(d["tokens_before"] for d in data["digests"])
        after = sum(d["tokens_after"] for d in data["digests"])
        saving = f"{before} -> {after} ({100 - after * 100 // before}% saved)" if before else "none made"
        reached = "yes" if data["reached"] else "no"
        assert len(sources) == len(merged)
        return (
            f"| {name} | {len(rows)} | {data['total_before']} -> {data['total_after']} (target"
            f" {data['compact_target']}, reached: {reached}, exit {code}) | {len(merged)} | {saving}"
            f" | {found}/{len(merged)} | {anywhere}/{len(merged)} |"
        )


def main_() -> int:
    print(
        "| memory | entries | tokens (cl100k_base) | merged | digests vs their sources"
        " | found by own first line: top 3 | in the answer (default limit 8) |"
    )
    print("|---|---|---|---|---|---|---|")
    print(measure("varied", varied()))
    print(measure("retrieval corpus", corpus()))
    return 0


if __name__ == "__main__":
    sys.exit(main_())
