"""Precision and recall of `lh memory review`'s pairing (contradictions and near-duplicates) on three sets.

- real: notes split (notes.py) from public memory files, labelled by reading (real_labels.tsv).
  Their text is not kept in this repository; give the folder holding the files named in SOURCES,
  each as of the commit named there (`git show COMMIT:PATH > DIR/NAME`).
- heldout: the 120 notes of benchmarks/retrieval/heldout, written for retrieval, read for this
  benchmark: no two of them say the same thing or disagree, so every pair found is a false one.
- own: pairs written for this benchmark (own.jsonl), each run inside the held-out notes, so that
  words common in a memory of that size are common here too.

    PYTHONPATH=src python benchmarks/review/evaluate.py [DIR]
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from lean_harness.memory.intake.review import Item, pairs

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import notes as splitter  # noqa: E402

# (file name in DIR, repository, commit, path, heading words or None), in the order the indices count.
PARLEAP = ("abybiju/ParLeap", "1ce361a54836a50cab1e5e2d841be8be4b709c73")
SOURCES = (
    ("parleap-2026-02-16.md", *PARLEAP, "memory/2026-02-16.md", None),
    ("parleap-2026-02-17.md", *PARLEAP, "memory/2026-02-17.md", None),
    ("parleap-MEMORY.md", *PARLEAP, "MEMORY.md", "February 17, 2026"),
    ("parleap-MEMORY.md", *PARLEAP, "MEMORY.md", "February 16, 2026"),
)
REAL_DIGEST = "8481fbe58e1b7a45"  # of the 101 notes the labels were made on


def items(texts: list[str]) -> list[Item]:
    return [Item("s", str(n), t.splitlines()[0][:80], t) for n, t in enumerate(texts)]


def found_pairs(texts: list[str]) -> dict[tuple[int, int], str]:
    return {(int(f.entries[0].id), int(f.entries[1].id)): f.kind for f in pairs(items(texts))}


def score(found: dict[tuple[int, int], str], wanted: dict[tuple[int, int], str]) -> tuple[int, int, int, int]:
    hits = sum(1 for pair, kind in found.items() if wanted.get(pair) == kind)
    return hits, len(found), len(wanted), len(set(found) & set(wanted))


def row(name: str, hits: int, reported: int, labelled: int, paired: int | None = None) -> str:
    """A table row; `paired`: pairs found that are labelled, whatever the kind said."""
    precision = f"{hits / reported:.2f}" if reported else "-"
    recall = f"{hits / labelled:.2f}" if labelled else "-"
    either = "-" if paired is None or not reported else f"{paired / reported:.2f} / {paired / labelled:.2f}"
    return f"| {name} | {labelled} | {reported} | {hits} | {precision} | {recall} | {either} |"


def main() -> None:
    heldout = [json.loads(line)["text"] for line in (HERE.parents[0] / "retrieval/heldout/notes.jsonl").open()]
    print("| set | labelled pairs | pairs found | right | precision | recall | kind aside: P / R |")
    print("|---|---|---|---|---|---|---|")
    if len(sys.argv) > 1:
        texts: list[str] = []
        for name, _, _, _, heading in SOURCES:
            text = (Path(sys.argv[1]) / name).read_text(encoding="utf-8")
            texts += splitter.split(splitter.section(text, heading) if heading else text)
        digest = hashlib.sha256("\n\0".join(texts).encode()).hexdigest()[:16]
        assert digest == REAL_DIGEST, f"the sources split into other notes ({digest}); check the commits"
        wanted = {}
        for line in (HERE / "real_labels.tsv").read_text().splitlines():
            if line and not line.startswith(("#", "a\t")):
                a, b, kind = line.split("\t")
                wanted[(min(int(a), int(b)), max(int(a), int(b)))] = kind
        found = found_pairs(texts)
        print(row(f"real ({len(texts)} notes, public memory files)", *score(found, wanted)))
        for pair in sorted(set(found) - set(wanted)):
            print(f"  false: {found[pair]} {pair}", file=sys.stderr)
    print(row(f"heldout ({len(heldout)} notes)", *score(found_pairs(heldout), {})[:3]))
    own = [json.loads(line) for line in (HERE / "own.jsonl").open()]
    for kind in ("contradiction", "duplicate"):
        hits = reported = 0
        for case in own:
            found = found_pairs([*heldout, case["a"], case["b"]])
            pair = (len(heldout), len(heldout) + 1)
            reported += found.get(pair) == kind
            hits += found.get(pair) == kind == case["kind"]
        labelled = sum(1 for case in own if case["kind"] == kind)
        print(row(f"own, {kind} ({labelled} of {len(own)} pairs)", hits, reported, labelled))


if __name__ == "__main__":
    main()
