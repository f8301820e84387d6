"""Derive the package's word-relation table from WordNet 3.0 (adr/0024).

    apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wordnet
    python3 benchmarks/retrieval/make_thesaurus.py wordnet/usr/share/wordnet

Writes src/lean_harness/memory/search/wordnet.tsv: for each common English word, up to 12 common
words WordNet relates to it, in the order of the word's senses (WordNet lists the commonest
first). A word is common when at least one of its senses was counted in WordNet's
sense-tagged corpus (the `tagsense_cnt` field of the index files); only single words of
lowercase letters and digits are kept. For each sense (all of them, so the technical senses
that the tagged corpus rarely counts stay) the related words are, in this order: the other
words of the sense's synonym set, the words of its direct hypernyms ("customer" for
"shopper") and the word's derivationally related forms ("deploy" for "deployment"). Nothing
here looks at any benchmark's words; the same WordNet files give the same bytes.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "src" / "lean_harness" / "memory" / "search" / "wordnet.tsv"
PARTS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
WORD_RE = re.compile(r"[a-z][a-z0-9]*")
MOST = 12

Synset = tuple[list[str], list[tuple[str, tuple[str, str], str]]]


def read_synsets(folder: Path) -> dict[tuple[str, str], Synset]:
    """(part of speech, offset) -> (its words, its pointers as (symbol, target, source/target))."""
    synsets: dict[tuple[str, str], Synset] = {}
    for name, part in PARTS.items():
        for line in (folder / f"data.{name}").read_text("latin-1").splitlines():
            if line.startswith(" "):  # the licence header
                continue
            fields = line.split(" | ")[0].split()
            count = int(fields[3], 16)
            words = [fields[4 + 2 * n].split("(")[0].lower() for n in range(count)]
            at = 4 + 2 * count
            pointers = []
            for _ in range(int(fields[at])):
                symbol, offset, target_part, ends = fields[at + 1 : at + 5]
                pointers.append((symbol, ("a" if target_part == "s" else target_part, offset), ends))
                at += 4
            synsets[(part, fields[0])] = (words, pointers)
    return synsets


def read_senses(folder: Path) -> dict[str, list[tuple[int, str, str, bool]]]:
    """word -> its senses as (rank, part of speech, offset, counted in the tagged corpus)."""
    senses: dict[str, list[tuple[int, str, str, bool]]] = {}
    for name, part in PARTS.items():
        for line in (folder / f"index.{name}").read_text("latin-1").splitlines():
            if line.startswith(" "):
                continue
            fields = line.split()
            at = 4 + int(fields[3])
            count, tagged = int(fields[at]), int(fields[at + 1])
            for rank, offset in enumerate(fields[at + 2 : at + 2 + count]):
                senses.setdefault(fields[0], []).append((rank, part, offset, rank < tagged))
    return senses


def relate(folder: Path) -> dict[str, list[str]]:
    """Each common word's related common words, commonest sense first, at most `MOST`."""
    synsets, senses = read_synsets(folder), read_senses(folder)
    common = {w for w, found in senses.items() if WORD_RE.fullmatch(w) and any(s[3] for s in found)}
    table: dict[str, list[str]] = {}
    for word in sorted(common):
        related: list[str] = []
        for _, part, offset, _ in sorted(senses[word], key=lambda s: (s[0], "nvar".index(s[1]))):
            words, pointers = synsets[(part, offset)]
            numbers = [n for n, w in enumerate(words, 1) if w == word]
            found = list(words)
            found += [w for symbol, target, _ in pointers if symbol in ("@", "@i") for w in synsets[target][0]]
            for symbol, target, ends in pointers:
                if symbol == "+" and int(ends[:2], 16) in numbers:
                    found.append(synsets[target][0][int(ends[2:], 16) - 1])
            for other in found:
                if other != word and other in common and other not in related:
                    related.append(other)
        if related:
            table[word] = related[:MOST]
    return table


def render(table: dict[str, list[str]]) -> bytes:
    return "".join(f"{word}\t{' '.join(table[word])}\n" for word in sorted(table)).encode()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="WordNet 3.0's dict folder (data.noun, index.noun, ...)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    data = render(relate(args.folder))
    args.output.write_bytes(data)
    lines = data.count(b"\n")
    print(f"{args.output}: {lines:,} words, {len(data):,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
