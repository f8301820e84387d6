"""Measure the injection guard: recall on directives, false positives on benign notes.

    python3 benchmarks/injection/run.py [--seed N]

Corpora: the generated one (corpus.py: conventions and lessons, and directives in the shapes
the guard refuses); the retrieval benchmark's 1,019 entries (written for search quality, not
for this guard); and the paragraphs of the long descriptions of every package installed in
the running interpreter (READMEs: install steps, usage notes, imperative prose by many
authors). A benign note counts as a false positive when anything at all is reported. Prints
Markdown tables and the median time to scan a note and to neutralise a 64 KiB text.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import pathlib
import statistics
import sys
import time
from collections import Counter, defaultdict

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "src")]

import corpus  # noqa: E402

from lean_harness.scanning import directives as injection  # noqa: E402
from lean_harness.scanning.masking import neutralise  # noqa: E402


def retrieval_notes() -> list[str]:
    path = HERE.parent / "retrieval" / "corpus.jsonl"
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def readme_paragraphs() -> list[str]:
    """Paragraphs of installed packages' long descriptions, one per distribution and text."""
    seen: set[str] = set()
    paragraphs: list[str] = []
    for dist in sorted(importlib.metadata.distributions(), key=lambda d: d.metadata["Name"] or ""):
        body = dist.metadata.get_payload() or dist.metadata.get("Description") or ""  # type: ignore[attr-defined]
        for raw in str(body).split("\n\n"):
            block = raw.strip()
            if len(block) >= 40 and block not in seen:
                seen.add(block)
                paragraphs.append(block)
    return paragraphs


def fp_row(name: str, texts: list[str], shown: list[str]) -> str:
    flagged = [(t, injection.scan(t)) for t in texts]
    hits = [(t, f) for t, f in flagged if f]
    for text, findings in hits[:5]:
        shown.append(f"{name}: [{findings[0].rule}] {findings[0].preview!s} in {' '.join(text.split())[:100]!r}")
    return f"| {name} | {len(texts)} | {len(hits)} | {len(hits) / max(1, len(texts)):.3f} |"


def median_ms(func: object, arg: str, runs: int = 51) -> float:
    call = func  # a callable taking one string
    call(arg)  # type: ignore[operator]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call(arg)  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    samples = corpus.build(args.seed)
    benign = [s for s in samples if not s.positive]
    directives = [s for s in samples if s.positive]
    found: dict[str, list[bool]] = defaultdict(list)
    missed: list[str] = []
    for sample in directives:
        rules = {f.rule for f in injection.scan(sample.text)}
        found[sample.kind].append(sample.kind in rules or bool(rules))
        if not rules:
            missed.append(f"missed [{sample.kind}] {sample.text!r}")
    print(f"Generated corpus: seed {args.seed}, {len(directives)} directives, {len(benign)} benign notes.\n")
    print("| directive kind | n | recall |\n| --- | ---: | ---: |")
    total = [hit for hits in found.values() for hit in hits]
    print(f"| **all directives** | {len(total)} | **{sum(total) / len(total):.3f}** |")
    for kind, hits in found.items():
        print(f"| {kind} | {len(hits)} | {sum(hits) / len(hits):.3f} |")
    print("\n| benign corpus | notes | flagged | false-positive rate |\n| --- | ---: | ---: | ---: |")
    shown: list[str] = []
    by_kind: dict[str, list[str]] = defaultdict(list)
    for sample in benign:
        by_kind[sample.kind].append(sample.text)
    print(fp_row("generated conventions and lessons (all)", [s.text for s in benign], shown))
    for kind, texts in by_kind.items():
        print(fp_row(f"generated: {kind}", texts, []))
    print(fp_row("retrieval benchmark entries", retrieval_notes(), shown))
    readmes = readme_paragraphs()
    print(fp_row("installed packages' README paragraphs", readmes, shown))
    rules = Counter(f.rule for text in readmes for f in injection.scan(text))
    if rules:
        print("\nREADME findings by rule: " + ", ".join(f"{r} {n}" for r, n in sorted(rules.items())))
    note = benign[0].text
    big = ("\n\n".join(s.text for s in benign) * 20)[:65536]
    print("\n| operation | median (51 runs) |\n| --- | ---: |")
    print(f"| scan a one-line note | {median_ms(injection.scan, note):.3f} ms |")
    print(f"| scan a 64 KiB text of notes | {median_ms(injection.scan, big):.2f} ms |")
    print(f"| neutralise a 64 KiB text of notes | {median_ms(neutralise, big):.2f} ms |")
    from lean_harness.scanning import credentials as secret_scan

    print(f"| credential scan of the same 64 KiB, for scale | {median_ms(secret_scan.scan, big):.2f} ms |")
    for line in missed + shown:
        print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
