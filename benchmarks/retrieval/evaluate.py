"""Compare lean-harness retrieval with stock bm25s and time it; prints Markdown tables.

    python3 benchmarks/retrieval/evaluate.py [--ablations] [--timing] [--sizes 1000,10000,100000]

Quality uses corpus.jsonl, queries.jsonl and qrels.tsv (see make_corpus.py). Queries with
an even number form the dev half that parameters were tuned on; odd ones are held out.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from lean_harness.memory import search  # noqa: E402

Ranker = Callable[[str], list[tuple[str, float]]]


def load() -> tuple[list[dict[str, object]], list[dict[str, str]], dict[str, set[str]]]:
    corpus = [json.loads(line) for line in (HERE / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    queries = [json.loads(line) for line in (HERE / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    qrels: dict[str, set[str]] = {q["qid"]: set() for q in queries}
    for line in (HERE / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, key, grade = line.split("\t")
        if int(grade) > 0:
            qrels[qid].add(key)
    return corpus, queries, qrels


def docs_of(corpus: list[dict[str, object]]) -> list[search.Doc]:
    return [
        search.Doc(str(e["id"]), str(e["shard"]), str(e["created"]), tuple(e["tags"]), str(e["text"]))  # type: ignore[arg-type]
        for e in corpus
    ]


def lh_ranker(corpus: list[dict[str, object]]) -> Ranker:
    index = search.Index.from_bytes(search.Index.build(docs_of(corpus)).to_bytes())
    return lambda query: [(h.id, h.score) for h in index.search(query, limit=10)]


def bm25s_ranker(corpus: list[dict[str, object]]) -> Ranker:
    import bm25s

    ids = [str(e["id"]) for e in corpus]
    texts = [f"{e['text']} {' '.join(e['tags'])} {e['shard']}" for e in corpus]  # type: ignore[arg-type]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)

    def rank(query: str) -> list[tuple[str, float]]:
        tokens = bm25s.tokenize([query], show_progress=False, return_ids=False)
        if not tokens[0]:
            return []
        found, scores = retriever.retrieve(tokens, k=10, show_progress=False)
        return [(ids[d], float(s)) for d, s in zip(found[0], scores[0], strict=False) if s > 0]

    return rank


def metrics(rank: Ranker, queries: Sequence[dict[str, str]], qrels: dict[str, set[str]]) -> dict[str, float]:
    totals = {"R@1": 0.0, "R@5": 0.0, "R@10": 0.0, "MRR@10": 0.0, "nDCG@10": 0.0}
    answerable = [q for q in queries if qrels[q["qid"]]]
    for query in answerable:
        relevant = qrels[query["qid"]]
        found = [key for key, _ in rank(query["query"])][:10]
        for k in (1, 5, 10):
            totals[f"R@{k}"] += len(relevant.intersection(found[:k])) / len(relevant)
        first = next((n for n, key in enumerate(found, 1) if key in relevant), 0)
        totals["MRR@10"] += 1 / first if first else 0.0
        dcg = sum(1 / math.log2(n + 1) for n, key in enumerate(found, 1) if key in relevant)
        ideal = sum(1 / math.log2(n + 1) for n in range(1, min(len(relevant), 10) + 1))
        totals["nDCG@10"] += dcg / ideal
    return {name: value / max(1, len(answerable)) for name, value in totals.items()}


def table(rows: list[tuple[str, dict[str, float]]]) -> str:
    names = list(rows[0][1])
    lines = ["| system | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    lines += [f"| {label} | " + " | ".join(f"{m[n]:.3f}" for n in names) + " |" for label, m in rows]
    return "\n".join(lines)


def quality(corpus: list[dict[str, object]], queries: list[dict[str, str]], qrels: dict[str, set[str]]) -> None:
    lh, bm = lh_ranker(corpus), bm25s_ranker(corpus)
    halves = {"all": queries, "dev (even)": queries[0::2], "held-out (odd)": queries[1::2]}
    for name, subset in halves.items():
        count = sum(1 for q in subset if qrels[q["qid"]])
        print(f"\n### {name}: {count} answerable queries\n")
        print(table([("lh", metrics(lh, subset, qrels)), ("bm25s", metrics(bm, subset, qrels))]))
    print("\n### by query kind (lh MRR@10 / bm25s MRR@10)\n")
    kinds = sorted({q["kind"] for q in queries if qrels[q["qid"]]})
    print("| kind | queries | lh | bm25s |\n|---|---|---|---|")
    for kind in kinds:
        subset = [q for q in queries if q["kind"] == kind]
        a, b = metrics(lh, subset, qrels)["MRR@10"], metrics(bm, subset, qrels)["MRR@10"]
        print(f"| {kind} | {len(subset)} | {a:.3f} | {b:.3f} |")
    abstention(lh, queries, qrels)


def abstention(rank: Ranker, queries: list[dict[str, str]], qrels: dict[str, set[str]]) -> None:
    print("\n### abstention at each min_score\n")
    print("Share of no-answer queries (off-topic / near the project's topics) that return nothing,")
    print("and of answerable queries whose relevant top-10 hit falls below the threshold.\n")
    results = {q["qid"]: rank(q["query"]) for q in queries}
    print("| min_score | off-topic: nothing returned | near-topic: nothing returned | answerable: hit lost |")
    print("|---|---|---|---|")
    for threshold in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5):
        empty = {"off-topic": [0, 0], "near-topic": [0, 0]}
        lost = answerable = 0
        for query in queries:
            hits = results[query["qid"]]
            kept = [key for key, score in hits if score >= threshold]
            relevant = qrels[query["qid"]]
            if relevant:
                answerable += 1
                lost += bool(relevant.intersection(key for key, _ in hits)) and not relevant.intersection(kept)
            else:
                empty[query["family"]][0] += not kept
                empty[query["family"]][1] += 1
        mark = " (default)" if threshold == search.DEFAULT_MIN_SCORE else ""
        cells = [f"{a}/{n} = {a / n:.0%}" for a, n in empty.values()]
        print(f"| {threshold}{mark} | {cells[0]} | {cells[1]} | {lost}/{answerable} = {lost / answerable:.1%} |")


ABLATIONS: list[tuple[str, dict[str, object]]] = [
    ("no stemming", {"STEM": False}),
    ("no synonym table", {"SYNONYM": 0.0}),
    ("no prefix completion or rejoining of unknown words", {"_NO_EXPANSION": True}),
    ("identifier parts at half weight in entries (PART_DOC=0.5)", {"PART_DOC": 0.5}),
    ("identifier parts at full weight in queries (PART_QUERY=1)", {"PART_QUERY": 1.0}),
    ("no first-line field (W_TITLE=0)", {"W_TITLE": 0.0}),
    ("no tags field (W_TAGS=0)", {"W_TAGS": 0.0}),
    ("no shard-name field (W_SHARD=0)", {"W_SHARD": 0.0}),
    ("b=0.75 (stock BM25)", {"B": 0.75}),
    ("k1=1.5 (bm25s default)", {"K1": 1.5}),
]


def ablations(corpus: list[dict[str, object]], queries: list[dict[str, str]], qrels: dict[str, set[str]]) -> None:
    print("\n### ablations (all queries; each row changes one thing from the shipped settings)\n")
    rows = [("lh as shipped", metrics(lh_ranker(corpus), queries, qrels))]
    for label, changes in ABLATIONS:
        saved = {name: getattr(search, name, None) for name in changes}
        for name, value in changes.items():
            if name == "_NO_EXPANSION":
                saved["_prefixed"] = search.Index._prefixed
                saved["_segment"] = search.Index._segment
                search.Index._prefixed = lambda self, prefix: []  # type: ignore[method-assign]
                search.Index._segment = lambda self, word: []  # type: ignore[method-assign]
            else:
                setattr(search, name, value)
        rows.append((label, metrics(lh_ranker(corpus), queries, qrels)))
        for name, value in saved.items():
            if name in ("_prefixed", "_segment"):
                setattr(search.Index, name, value)
            elif value is not None:
                setattr(search, name, value)
    print(table(rows))


def timing(queries: list[dict[str, str]], sizes: Sequence[int]) -> None:
    from make_corpus import synthetic

    print("\n### in-process time of Index.from_bytes + search (ms, over the query set)\n")
    print(
        "| entries | index bytes | build s | load median | load+search median | load+search p95"
        " | process wall median | `python3 -c pass` |"
    )
    print("|---|---|---|---|---|---|---|---|")
    texts = [q["query"] for q in queries]
    for size in sizes:
        docs = docs_of(synthetic(size))
        start = time.perf_counter()
        blob = search.Index.build(docs).to_bytes()
        built = time.perf_counter() - start
        loads, totals = [], []
        for text in texts:
            start = time.perf_counter()
            index = search.Index.from_bytes(blob)
            loaded = time.perf_counter()
            index.search(text, limit=10)
            totals.append((time.perf_counter() - start) * 1000)
            loads.append((loaded - start) * 1000)
        wall, bare = process_wall(blob, texts[:20])
        p95 = statistics.quantiles(totals, n=20)[-1]
        print(
            f"| {size:,} | {len(blob) / 1e6:.1f} MB | {built:.1f} | {statistics.median(loads):.1f} |"
            f" {statistics.median(totals):.1f} | {p95:.1f} | {wall:.0f} | {bare:.0f} |"
        )


def process_wall(blob: bytes, texts: list[str]) -> tuple[float, float]:
    """Median wall ms of a fresh interpreter that reads the index file and runs one query."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "index.bin"
        path.write_bytes(blob)
        script = (
            "import sys\nfrom lean_harness.memory.search import Index\n"
            "with open(sys.argv[1], 'rb') as f: Index.from_bytes(f.read()).search(sys.argv[2], limit=10)\n"
        )
        env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
        runs, bare = [], []
        for text in texts:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", script, str(path), text], check=True, env=env)
            runs.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
            bare.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs), statistics.median(bare)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ablations", action="store_true", help="also measure each ranking choice")
    parser.add_argument("--timing", action="store_true", help="also time load+search on synthetic corpora")
    parser.add_argument("--sizes", default="1000,10000,100000", help="entry counts for --timing")
    args = parser.parse_args(argv)
    corpus, queries, qrels = load()
    print(f"## retrieval benchmark: {len(corpus)} entries, {len(queries)} queries")
    quality(corpus, queries, qrels)
    if args.ablations:
        ablations(corpus, queries, qrels)
    if args.timing:
        timing(queries, [int(s) for s in args.sizes.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
