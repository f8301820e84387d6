"""Compare lean-harness retrieval with stock bm25s and time it; prints Markdown tables.

    python3 benchmarks/retrieval/evaluate.py [--ablations] [--timing] [--sizes 1000,10000,100000]

Quality uses corpus.jsonl, queries.jsonl and qrels.tsv (see make_corpus.py). Queries with
an even number form the dev half that parameters were tuned on; odd ones are held out.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from lean_harness.memory.search import search  # noqa: E402

Ranker = Callable[[str], list[tuple[str, float]]]

# Held-out sets kept out of the halves that parameters are picked on: the check of a change.
UNSEEN = frozenset({"fresh", "later"})


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def read_qrels(path: Path, queries: list[dict[str, Any]]) -> dict[str, set[str]]:
    qrels: dict[str, set[str]] = {q["qid"]: set() for q in queries}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        qid, key, grade = line.split("\t")
        if int(grade) > 0:
            qrels[qid].add(key)
    return qrels


def load() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, set[str]]]:
    """The project's own corpus, its generated queries and their relevant entries."""
    queries = read_jsonl(HERE / "queries.jsonl")
    return read_jsonl(HERE / "corpus.jsonl"), queries, read_qrels(HERE / "qrels.tsv", queries)


def load_heldout(*, mixed: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, set[str]]]:
    """The hand-written notes (with `mixed`, plus the project corpus as distractors) and held-out queries."""
    queries = read_jsonl(HERE / "heldout" / "queries.jsonl")
    corpus = read_jsonl(HERE / "heldout" / "notes.jsonl") + (read_jsonl(HERE / "corpus.jsonl") if mixed else [])
    return corpus, queries, read_qrels(HERE / "heldout" / "qrels.tsv", queries)


def docs_of(corpus: list[dict[str, Any]]) -> list[search.Doc]:
    return [
        search.Doc(str(e["id"]), str(e["shard"]), str(e["created"]), tuple(e["tags"]), str(e["text"])) for e in corpus
    ]


def shard_files(docs: list[search.Doc], settings: search.Settings = search.DEFAULT_SETTINGS) -> dict[str, bytes]:
    """Each shard's segment as lh caches it, one file per shard (memory/search_cache.py)."""
    names = sorted({doc.shard for doc in docs})
    return {name: search.segment_of([d for d in docs if d.shard == name], settings).to_bytes({}) for name in names}


def loaded(files: dict[str, bytes], settings: search.Settings = search.DEFAULT_SETTINGS) -> search.Index:
    """The index of the shard files `shard_files` gave, each read back as a query reads its cache file."""
    from lean_harness.memory.search import segment

    return search.Index([segment.from_bytes(data, name)[1] for name, data in files.items()], settings)


def lh_ranker(corpus: list[dict[str, Any]], settings: search.Settings = search.DEFAULT_SETTINGS) -> Ranker:
    index = loaded(shard_files(docs_of(corpus), settings), settings)
    return lambda query: [(h.id, h.score) for h in index.search(query, limit=10)]


def entry_text(entry: dict[str, Any]) -> str:
    """An entry as one string for the comparison rankers: its text, tags and shard name."""
    return f"{entry['text']} {' '.join(entry['tags'])} {entry['shard']}"


def bm25s_ranker(corpus: list[dict[str, Any]], *, stemmed: bool = False) -> Ranker:
    import bm25s

    stemmer = None
    if stemmed:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    ids = [str(e["id"]) for e in corpus]
    texts = [entry_text(e) for e in corpus]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stemmer=stemmer, show_progress=False), show_progress=False)

    def rank(query: str) -> list[tuple[str, float]]:
        tokens = bm25s.tokenize([query], stemmer=stemmer, show_progress=False, return_ids=False)
        if not tokens[0]:
            return []
        found, scores = retriever.retrieve(tokens, k=10, show_progress=False)
        return [(ids[d], float(s)) for d, s in zip(found[0], scores[0], strict=False) if s > 0]

    return rank


def systems(corpus: list[dict[str, Any]]) -> list[tuple[str, Ranker]]:
    return [
        ("lh", lh_ranker(corpus)),
        ("bm25s", bm25s_ranker(corpus)),
        ("bm25s + stemmer", bm25s_ranker(corpus, stemmed=True)),
    ]


def metrics(rank: Ranker, queries: Sequence[dict[str, Any]], qrels: dict[str, set[str]]) -> dict[str, float]:
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


def latency(rank: Ranker, queries: Sequence[dict[str, Any]]) -> float:
    """Median in-process ms of one query."""
    times = []
    for query in queries:
        start = time.perf_counter()
        rank(query["query"])
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def table(rows: list[tuple[str, dict[str, float]]]) -> str:
    names = list(rows[0][1])
    lines = ["| system | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    lines += [f"| {label} | " + " | ".join(f"{m[n]:.3f}" for n in names) + " |" for label, m in rows]
    return "\n".join(lines)


def quality(corpus: list[dict[str, Any]], queries: list[dict[str, Any]], qrels: dict[str, set[str]]) -> None:
    """The project's own generated benchmark: dev (even) and held-out (odd) halves."""
    ranked = systems(corpus)
    halves = {"all": queries, "dev (even)": queries[0::2], "held-out (odd)": queries[1::2]}
    for name, subset in halves.items():
        count = sum(1 for q in subset if qrels[q["qid"]])
        print(f"\n### project corpus, {name}: {count} answerable queries\n")
        print(table([(label, metrics(rank, subset, qrels)) for label, rank in ranked]))
    print("\n### project corpus by query kind (MRR@10)\n")
    kinds = sorted({q["kind"] for q in queries if qrels[q["qid"]]})
    print("| kind | queries | " + " | ".join(label for label, _ in ranked) + " |")
    print("|---|---|" + "---|" * len(ranked))
    for kind in kinds:
        subset = [q for q in queries if q["kind"] == kind]
        cells = " | ".join(f"{metrics(rank, subset, qrels)['MRR@10']:.3f}" for _, rank in ranked)
        print(f"| {kind} | {len(subset)} | {cells} |")
    abstention(ranked[0][1], queries, qrels)


def heldout(
    corpus: list[dict[str, Any]], queries: list[dict[str, Any]], qrels: dict[str, set[str]], title: str
) -> None:
    """The hand-written held-out sets, each on its own, with per-query latency."""
    ranked = systems(corpus)
    sets = sorted({q["set"] for q in queries if qrels[q["qid"]]})
    print(f"\n## held-out sets, {title}: {len(corpus)} entries")
    for name in [*sets, "all"]:
        subset = [q for q in queries if name in ("all", q["set"]) and qrels[q["qid"]]]
        print(f"\n### held-out set {name}: {len(subset)} queries\n")
        rows = [(label, metrics(rank, subset, qrels)) for label, rank in ranked]
        for (_, row), (_, rank) in zip(rows, ranked, strict=True):
            row["ms/query"] = latency(rank, subset)
        print(table(rows))
    answerable = [q for q in queries if qrels[q["qid"]] and q["set"] not in UNSEEN]
    print("\n### held-out halves (all sets but `fresh` and `later`): even queries pick parameters, odd ones check them")
    print()
    for name, subset in (("even", answerable[0::2]), ("odd", answerable[1::2])):
        print(
            f"{name}: "
            + ", ".join(
                f"{label} R@10 {metrics(rank, subset, qrels)['R@10']:.3f} MRR@10 "
                f"{metrics(rank, subset, qrels)['MRR@10']:.3f}"
                for label, rank in ranked
            )
        )
    issue_ranks(ranked, queries, qrels)
    heldout_abstention(ranked[0][1], queries, qrels)


def issue_ranks(ranked: list[tuple[str, Ranker]], queries: list[dict[str, Any]], qrels: dict[str, set[str]]) -> None:
    """Where each ranker places the note of each reworded developer question of the issue ("-": not in its 10)."""
    print("\n### the reworded developer questions: rank of the target note\n")
    print("| query | " + " | ".join(label for label, _ in ranked) + " |")
    print("|---|" + "---|" * len(ranked))
    for query in (q for q in queries if q["set"] == "issue"):
        cells = []
        for _, rank in ranked:
            found = [key for key, _ in rank(query["query"])]
            hit = next((n for n, key in enumerate(found, 1) if key in qrels[query["qid"]]), None)
            cells.append(str(hit) if hit else "-")
        print(f"| {query['query']} | " + " | ".join(cells) + " |")


def heldout_abstention(rank: Ranker, queries: list[dict[str, Any]], qrels: dict[str, set[str]]) -> None:
    """At each min_score: unanswerable questions that get nothing, and found notes the threshold drops."""
    print("\n### held-out abstention at each min_score (lh)\n")
    print("| min_score | no-answer questions: nothing returned | answerable: relevant top-10 hit lost |")
    print("|---|---|---|")
    results = {q["qid"]: rank(q["query"]) for q in queries}
    for threshold in (0.2, 0.25, 0.3, 0.35, 0.4):
        empty = unanswerable = lost = found = 0
        for query in queries:
            hits, relevant = results[query["qid"]], qrels[query["qid"]]
            kept = {key for key, score in hits if score >= threshold}
            if not relevant:
                unanswerable += 1
                empty += not kept
            elif relevant.intersection(key for key, _ in hits):
                found += 1
                lost += not relevant.intersection(kept)
        mark = " (default)" if threshold == search.DEFAULT_MIN_SCORE else ""
        print(
            f"| {threshold}{mark} | {empty}/{unanswerable} = {empty / unanswerable:.0%} |"
            f" {lost}/{found} = {lost / found:.1%} |"
        )


def abstention(rank: Ranker, queries: list[dict[str, Any]], qrels: dict[str, set[str]]) -> None:
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


ABLATIONS: list[tuple[str, dict[str, Any]]] = [
    ("no WordNet relations", {"thesaurus": 0.0}),
    ("WordNet relations at weight 0.4", {"thesaurus": 0.4}),
    ("WordNet relations also through terms in over 5% of entries", {"thesaurus_common": 1.0}),
    ("no associations learned from the memory", {"associations": 0}),
    ("associations at weight 0.5", {"association_weight": 0.5}),
    ("10 associations per query word", {"associations": 10}),
    ("no stemming", {"stem": False}),
    ("no synonym table", {"synonym": 0.0}),
    ("no prefix completion or rejoining of unknown words", {"expand_unknown": False}),
    ("identifier parts at half weight in entries (part_doc=0.5)", {"part_doc": 0.5}),
    ("identifier parts at full weight in queries (part_query=1)", {"part_query": 1.0}),
    ("each piece of a rejoined unknown word at full weight (piece=1)", {"piece": 1.0}),
    ("no title field (w_title=0)", {"w_title": 0.0}),
    ("title field at weight 1", {"w_title": 1.0}),
    ("title field: the whole first line", {"short_title": False}),
    ("the whole first line at weight 1 (the previous title field)", {"short_title": False, "w_title": 1.0}),
    ("no tags field (w_tags=0)", {"w_tags": 0.0}),
    ("no shard-name field (w_shard=0)", {"w_shard": 0.0}),
    ("b=0.75 (stock BM25)", {"b": 0.75}),
    ("k1=1.5 (bm25s default)", {"k1": 1.5}),
]


def ablations(named: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], dict[str, set[str]]]]) -> None:
    """Each row changes one setting from the shipped ones; R@10 / MRR@10 on every data set."""
    print("\n### ablations: R@10 / MRR@10 per data set; each row changes one setting\n")
    print("| settings | " + " | ".join(name for name, *_ in named) + " |")
    print("|---|" + "---|" * len(named))
    for label, changes in [("lh as shipped", {}), *ABLATIONS]:
        settings = dataclasses.replace(search.DEFAULT_SETTINGS, **changes)
        cells = []
        for _, corpus, queries, qrels in named:
            found = metrics(lh_ranker(corpus, settings), queries, qrels)
            cells.append(f"{found['R@10']:.3f} / {found['MRR@10']:.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")


def timing(queries: list[dict[str, Any]], sizes: Sequence[int]) -> None:
    from make_corpus import synthetic

    print("\n### in-process time of reading the shards' cached segments + search (ms, over the query set)\n")
    print(
        "| entries | index bytes | build s | load median | load+search median | load+search p95"
        " | process wall median | `python3 -c pass` |"
    )
    print("|---|---|---|---|---|---|---|---|")
    texts = [q["query"] for q in queries]
    for size in sizes:
        docs = docs_of(synthetic(size))
        start = time.perf_counter()
        blob = shard_files(docs)
        built = time.perf_counter() - start
        loads, totals = [], []
        for text in texts:
            start = time.perf_counter()
            index = loaded(blob)
            read = time.perf_counter()
            index.search(text, limit=10)
            totals.append((time.perf_counter() - start) * 1000)
            loads.append((read - start) * 1000)
        wall, bare = process_wall(blob, texts[:20])
        p95 = statistics.quantiles(totals, n=20)[-1]
        print(
            f"| {size:,} | {sum(map(len, blob.values())) / 1e6:.1f} MB | {built:.1f} | {statistics.median(loads):.1f} |"
            f" {statistics.median(totals):.1f} | {p95:.1f} | {wall:.0f} | {bare:.0f} |"
        )


def process_wall(files: dict[str, bytes], texts: list[str]) -> tuple[float, float]:
    """Median wall ms of a fresh interpreter that reads the index files and runs one query."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        for name, data in files.items():
            (path / f"{name}.idx").write_bytes(data)
        script = (
            "import sys\nfrom pathlib import Path\nfrom lean_harness.memory.search.search import Index\n"
            "from lean_harness.memory.search import segment\n"
            "parts = [segment.from_bytes(p.read_bytes(), p.stem)[1] for p in sorted(Path(sys.argv[1]).glob('*.idx'))]\n"
            "Index(parts).search(sys.argv[2], limit=10)\n"
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
    print(f"## retrieval benchmark: project corpus {len(corpus)} entries, {len(queries)} queries")
    quality(corpus, queries, qrels)
    held_corpus, held_queries, held_qrels = load_heldout()
    heldout(held_corpus, held_queries, held_qrels, "the 120 hand-written notes alone")
    mixed_corpus = load_heldout(mixed=True)[0]
    heldout(mixed_corpus, held_queries, held_qrels, "the notes mixed with the project corpus as distractors")
    if args.ablations:
        named = [("project", corpus, queries, qrels)]
        for name in sorted({q["set"] for q in held_queries if held_qrels[q["qid"]]}):
            subset = [q for q in held_queries if q["set"] == name]
            named.append((name, held_corpus, subset, held_qrels))
            named.append((f"{name} (mixed)", mixed_corpus, subset, held_qrels))
        ablations(named)
    if args.timing:
        timing(queries, [int(s) for s in args.sizes.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
