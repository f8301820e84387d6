"""Retrieval on LoCoMo, a public benchmark of long conversations that lh was not designed against.

    python3 benchmarks/retrieval/locomo.py PATH [--src OTHER/src]

PATH is LoCoMo's `data/locomo10.zip` (github.com/snap-research/locomo; not copied into this
repository: its licence is its own) or the folder it unpacks to. Each of its ten conversations
becomes one memory whose entries are the turns ("Speaker: text", with the caption of a shared
image when there is one; the session's date as the entry's time), and each question is asked of
its own conversation's memory. A turn named in the question's `evidence` is relevant. Prints
R@1/R@5/R@10/MRR@10 per question category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial: the turn that a question about something never said points at) for lh and for
bm25s with and without a stemmer, as evaluate.py runs them. `--src` adds the lh of another source
tree (run in a child process), for before/after figures on the same data. `--ablations` adds
R@10 / MRR@10 over categories 1-4 for each row of evaluate.py's ablations. `--thresholds` prints
only lh's R@10 over categories 1-4 as `lh memory get --query` answers by default (every entry that
holds a word of the question), with `--min-score 0` and with `--min-score 0.3` (no bm25s needed).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from evaluate import ABLATIONS, Ranker, bm25s_ranker, docs_of, lh_ranker, loaded, metrics, search, shard_files

_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_ASKED = {CATEGORIES[n] for n in (1, 2, 3, 4)}


def conversations(path: Path) -> Iterator[dict[str, Any]]:
    """Each conversation's JSON, from the zip or from the folder it unpacks to, in file order."""
    if path.is_dir():
        for file in sorted(path.rglob("*.json")):
            yield json.loads(file.read_text("utf-8"))
        return
    with zipfile.ZipFile(path) as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".json")):
            yield json.loads(archive.read(name))


def _when(stamp: str) -> str:
    """A session's date ("1:56 pm on 8 May, 2023") as an entry's time."""
    try:
        return datetime.strptime(stamp, "%I:%M %p on %d %B, %Y").strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return "2023-01-01T00:00:00Z"


def memory_of(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation's turns as entries."""
    entries = []
    for key, turns in conversation.items():
        if not key.startswith("session_") or key.endswith("date_time") or not isinstance(turns, list):
            continue
        created = _when(str(conversation.get(f"{key}_date_time", "")))
        for turn in turns:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shared {turn['blip_caption']}]"
            entries.append(
                {"id": turn["dia_id"], "shard": "conversation", "created": created, "tags": [], "text": text}
            )
    return entries


def questions_of(conversation: dict[str, Any], number: int) -> tuple[list[dict[str, Any]], dict[str, set[str]]]:
    queries, qrels = [], {}
    for at, item in enumerate(conversation["qa"]):
        qid = f"c{number}q{at}"
        queries.append({"qid": qid, "query": str(item["question"]), "set": CATEGORIES.get(item.get("category"), "?")})
        # a few evidence fields hold several ids, "D:11:26" or "D30:05": read every id in them
        qrels[qid] = {f"D{a}:{b}" for e in item.get("evidence", []) for a, b in _EVIDENCE.findall(str(e))}
    return queries, qrels


def _child_ranker(source: Path, corpus: list[dict[str, Any]], queries: list[dict[str, Any]]) -> Ranker:
    """lh of another source tree: every query answered at once in a child process."""
    script = (
        "import json, sys\nfrom lean_harness.memory.search import search\n"
        "corpus, texts = json.load(sys.stdin)\n"
        "docs = [search.Doc(e['id'], e['shard'], e['created'], tuple(e['tags']), e['text']) for e in corpus]\n"
        "index = search.Index.build(docs)\n"
        "print(json.dumps({t: [[h.id, h.score] for h in index.search(t, limit=10)] for t in texts}))\n"
    )
    texts = sorted({q["query"] for q in queries})
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps([corpus, texts]),
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin"},
    )
    answers = json.loads(done.stdout)
    return lambda query: [(key, score) for key, score in answers[query]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="LoCoMo's data/locomo10.zip, or the folder it unpacks to")
    parser.add_argument("--src", action="append", type=Path, default=[], help="another source tree's src folder")
    parser.add_argument("--ablations", action="store_true", help="also each ranking choice of evaluate.py")
    parser.add_argument("--thresholds", action="store_true", help="only lh's R@10 at each answer threshold")
    args = parser.parse_args(argv)
    if args.thresholds:
        thresholds(args.path)
        return 0
    found: dict[str, dict[str, list[tuple[list[dict[str, Any]], Ranker, dict[str, set[str]]]]]] = {}
    names = ["lh", *(f"lh ({source})" for source in args.src), "bm25s + stemmer", "bm25s"]
    entries = 0
    for number, conversation in enumerate(conversations(args.path)):
        corpus = memory_of(conversation)
        entries += len(corpus)
        queries, qrels = questions_of(conversation, number)
        rankers: dict[str, Ranker] = {"lh": lh_ranker(corpus)}
        for source in args.src:
            rankers[f"lh ({source})"] = _child_ranker(source, corpus, queries)
        rankers["bm25s + stemmer"] = bm25s_ranker(corpus, stemmed=True)
        rankers["bm25s"] = bm25s_ranker(corpus)
        for name in names:
            for category in {q["set"] for q in queries}:
                subset = [q for q in queries if q["set"] == category]
                found.setdefault(name, {}).setdefault(category, []).append((subset, rankers[name], qrels))
    print(f"LoCoMo: {entries} turns in 10 conversations; R@1 / R@5 / R@10 / MRR@10 per question category\n")
    order = [*CATEGORIES.values()]
    print("| category (questions) | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for category in [*order, "1-4"]:
        cells, asked = [], 0
        for name in names:
            parts = [p for c in (order[:4] if category == "1-4" else [category]) for p in found[name].get(c, [])]
            totals = {"R@1": 0.0, "R@5": 0.0, "R@10": 0.0, "MRR@10": 0.0}
            asked = 0
            for subset, rank, qrels in parts:
                count = sum(1 for q in subset if qrels[q["qid"]])
                figures = metrics(rank, subset, qrels)
                for key in totals:
                    totals[key] += figures[key] * count
                asked += count
            cells.append(" / ".join(f"{totals[k] / max(1, asked):.3f}" for k in totals))
        print(f"| {category} ({asked}) | " + " | ".join(cells) + " |")
    if args.ablations:
        ablations(args.path)
    return 0


def thresholds(path: Path) -> None:
    """R@10 over categories 1-4 as `lh memory get --query` keeps hits: by default, then at set scores."""
    from lean_harness.memory.search import query

    settings: list[tuple[str, float | None]] = [("default", None), ("--min-score 0", 0.0), ("--min-score 0.3", 0.3)]
    recall = dict.fromkeys((label for label, _ in settings), 0.0)
    asked = 0
    for number, conversation in enumerate(conversations(path)):
        questions, qrels = questions_of(conversation, number)
        index = loaded(shard_files(docs_of(memory_of(conversation))))
        for question in questions:
            relevant = qrels[question["qid"]]
            if question["set"] not in _ASKED or not relevant:
                continue
            asked += 1
            for label, score in settings:
                hits = query.kept(index.search(question["query"], limit=10, min_score=score or 0.0), score)
                recall[label] += len(relevant.intersection(hit.id for hit in hits)) / len(relevant)
    print(f"LoCoMo, categories 1-4 ({asked} questions): R@10 of lh memory get --query\n")
    print("| answers kept | R@10 |\n|---|---:|")
    for label, total in recall.items():
        print(f"| {label} | {total / asked:.3f} |")


def ablations(path: Path) -> None:
    """R@10 / MRR@10 over categories 1-4 with each row of evaluate.py's ablations."""
    data = []
    for number, conversation in enumerate(conversations(path)):
        queries, qrels = questions_of(conversation, number)
        data.append((memory_of(conversation), [q for q in queries if q["set"] in _ASKED], qrels))
    print("\n| settings | R@10 / MRR@10, categories 1-4 |\n|---|---:|")
    for label, changes in [("lh as shipped", {}), *ABLATIONS]:
        settings = dataclasses.replace(search.DEFAULT_SETTINGS, **changes)
        recall = reciprocal = asked = 0.0
        for corpus, queries, qrels in data:
            count = sum(1 for q in queries if qrels[q["qid"]])
            figures = metrics(lh_ranker(corpus, settings), queries, qrels)
            recall, reciprocal, asked = (
                recall + figures["R@10"] * count,
                reciprocal + figures["MRR@10"] * count,
                asked + count,
            )
        print(f"| {label} | {recall / asked:.3f} / {reciprocal / asked:.3f} |")


if __name__ == "__main__":
    raise SystemExit(main())
