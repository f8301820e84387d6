"""Measure the credential scanner on the generated corpus, next to detect-secrets.

    python3 benchmarks/secrets/run.py [--detect-secrets-python PATH]

Prints a Markdown table: recall per secret kind, false positives per benign kind,
the totals, and the median time to scan a 64 KiB entry. detect-secrets runs in its
own interpreter (see run.sh, which makes a venv for it); without one, its column
is left out. A secret counts as found when a finding overlaps it (detect-secrets
reports lines only, so for it a report on a line of the secret counts); a benign
note counts as a false positive when anything at all is reported.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time
from collections import defaultdict

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "src")]

import corpus  # noqa: E402
import public_shapes  # noqa: E402

from lean_harness.scanning import credentials as secret_scan  # noqa: E402


def lh_results(samples: list[corpus.Sample]) -> list[bool]:
    """For a positive: was the secret found; for a benign note: was anything reported."""
    hits = []
    for sample in samples:
        findings = secret_scan.scan(sample.text)
        if sample.positive:
            start, end = sample.span()
            hits.append(any(f.start < end and f.end > start for f in findings))
        else:
            hits.append(bool(findings))
    return hits


def ds_results(samples: list[corpus.Sample], python: str) -> list[bool]:
    """The same question answered from detect-secrets' reported line numbers."""
    texts = [sample.text for sample in samples]
    done = subprocess.run(
        [python, str(HERE / "ds_scan.py")], input=json.dumps(texts), capture_output=True, text=True, check=True
    )
    hits = []
    for sample, lines in zip(samples, json.loads(done.stdout), strict=True):
        if sample.positive:
            start, end = sample.span()
            first = sample.text.count("\n", 0, start) + 1
            last = sample.text.count("\n", 0, end) + 1
            hits.append(any(first <= line <= last for line in lines))
        else:
            hits.append(bool(lines))
    return hits


def entry_64k(samples: list[corpus.Sample], with_secrets: bool) -> str:
    """About 64 KiB of notes: the benign corpus repeated, optionally with a few secrets mixed in."""
    notes = [s.text for s in samples if not s.positive]
    if with_secrets:
        notes[::40] = [s.text for s in samples if s.positive][:: max(1, len(samples) // 20)][: len(notes[::40])]
    text = ""
    while len(text) < 65536:
        text += "\n\n".join(notes) + "\n\n"
    return text[:65536]


def median_ms(text: str, runs: int = 51) -> float:
    secret_scan.scan(text)  # compile the rules this text needs
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        secret_scan.scan(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cold_ms() -> float:
    """Import plus first scan of a small note in a fresh interpreter (what a hook pays)."""
    code = (
        "import time; t = time.perf_counter(); from lean_harness.scanning import credentials; "
        "credentials.scan('a short note: token rotated, see the vault'); print(time.perf_counter() - t)"
    )
    env_path = str(HERE.parents[1] / "src")
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": env_path}).stdout)
        for _ in range(7)
    ]  # fmt: skip
    return statistics.median(runs) * 1000


def rate(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.3f}" if hits else "-"


def table(samples: list[corpus.Sample], columns: dict[str, list[bool]]) -> list[str]:
    names = list(columns)
    rows = [
        "| kind | n | " + " | ".join(names) + " |",
        "| --- | ---: | " + " | ".join("---:" for _ in names) + " |",
    ]
    for positive, title in ((True, "recall"), (False, "false-positive rate")):
        groups: dict[str, list[int]] = defaultdict(list)
        for index, sample in enumerate(samples):
            if sample.positive is positive:
                groups[sample.kind].append(index)
        every = [i for idx in groups.values() for i in idx]
        rows.append(
            f"| **all {'secrets' if positive else 'benign notes'} ({title})** | {len(every)} | "
            + " | ".join(f"**{rate([columns[n][i] for i in every])}**" for n in names)
            + " |"
        )
        for kind, indices in groups.items():
            rows.append(
                f"| {kind} | {len(indices)} | "
                + " | ".join(rate([columns[n][i] for i in indices]) for n in names)
                + " |"
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detect-secrets-python", default=str(HERE / ".venv" / "bin" / "python"))
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)
    samples = corpus.build(args.seed)
    columns = {"lean-harness": lh_results(samples)}
    if pathlib.Path(args.detect_secrets_python).exists():
        columns["detect-secrets 1.5.0"] = ds_results(samples, args.detect_secrets_python)
    else:
        print(f"(no interpreter at {args.detect_secrets_python}; run run.sh to compare with detect-secrets)\n")
    positives = sum(s.positive for s in samples)
    kinds = len(corpus.secret_kinds(corpus.Gen(0))) + len(corpus.shape_kinds(corpus.Gen(0)))
    print(f"Corpus: seed {args.seed}, {positives} secrets in {kinds} kinds, "
          f"{len(samples) - positives} benign notes in {len(corpus.benign_kinds(corpus.Gen(0)))} kinds.\n")  # fmt: skip
    print("\n".join(table(samples, columns)))
    second = public_shapes.build()
    others = {"lean-harness": lh_results(second)}
    if "detect-secrets 1.5.0" in columns:
        others["detect-secrets 1.5.0"] = ds_results(second, args.detect_secrets_python)
    positives = sum(s.positive for s in second)
    print(f"\nSecond corpus, in the shapes of public scanner suites: {positives} secrets,"
          f" {len(second) - positives} benign lines.\n")  # fmt: skip
    print("\n".join(table(second, others)))
    benign, mixed = entry_64k(samples, False), entry_64k(samples, True)
    print("\n| 64 KiB entry | median scan time (51 runs) |\n| --- | ---: |")
    print(f"| benign notes only | {median_ms(benign):.2f} ms |")
    print(f"| with {len(secret_scan.scan(mixed))} secrets mixed in | {median_ms(mixed):.2f} ms |")
    print(f"| fresh interpreter: import + first scan of a short note | {cold_ms():.2f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
