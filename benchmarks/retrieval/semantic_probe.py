"""Measure an optional semantic stage (WordLlama static embeddings) beside lh's lexical ranking.

    python3 benchmarks/retrieval/semantic_probe.py [--cost]

Needs the `wordllama` package (0.4.x), which ships its default weights; the model is opened
from the installed package with downloads disabled. Compares, on the held-out notes alone and
mixed with the project corpus and on the project corpus itself: lh as evaluate.py runs it,
WordLlama's cosine alone, hybrids of the two, and bm25s with a stemmer. Each hybrid's parameters
are picked on the even half of the held-out questions only; the odd half, `fresh` and `later`
check the pick. `--cost` adds import, load, embedding and storage costs.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evaluate import (
    UNSEEN,
    Ranker,
    bm25s_ranker,
    docs_of,
    entry_text,
    issue_ranks,
    lh_ranker,
    load,
    load_heldout,
    loaded,
    metrics,
    search,
    shard_files,
)

POOL = 100  # how many candidates each ranker hands to a fusion
DIMS = (64, 128, 256)
WEIGHTS = tuple(round(0.1 * n, 1) for n in range(1, 11))

Data = tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, set[str]]]


def model(dim: int = 256) -> Any:
    """WordLlama's default model, opened from the installed package only (never downloaded).

    0.4.0's `WordLlama.load()` looks for the bundled tokenizer under `tokenizer/` while the wheel
    ships it under `tokenizers/`, so it fetches it from the network; pointing the cache at the
    package folder finds both bundled files, and `disable_download` makes a miss an error.
    """
    import wordllama

    folder = Path(wordllama.__file__).parent
    return wordllama.WordLlama.load(cache_dir=folder, disable_download=True, trunc_dim=None if dim == 256 else dim)


@dataclass(frozen=True)
class Prepared:
    """One corpus with every query's lexical top-POOL and cosine against every entry."""

    ids: list[str]
    lexical: dict[str, list[tuple[str, float]]]
    cosine: dict[str, Any]  # query -> numpy vector over entries
    semantic: dict[str, list[tuple[str, float]]]  # query -> cosine top-POOL


def prepare(
    corpus: list[dict[str, Any]], queries: Sequence[str], wl: Any, *, norm: bool = True, half: bool = False
) -> Prepared:
    import numpy as np

    index = loaded(shard_files(docs_of(corpus)))
    entries = wl.embed([entry_text(e) for e in corpus], norm=norm)
    asked = wl.embed(list(queries), norm=norm)
    if half:  # stored as float16, compared in float32
        entries = entries.astype(np.float16).astype(np.float32)
    ids = [str(e["id"]) for e in corpus]
    lexical, cosine, semantic = {}, {}, {}
    for text, vector in zip(queries, asked, strict=True):
        lexical[text] = [(h.id, h.score) for h in index.search(text, limit=POOL)]
        values = entries @ vector
        cosine[text] = values
        top = np.argsort(-values, kind="stable")[:POOL]
        semantic[text] = [(ids[n], float(values[n])) for n in top]
    return Prepared(ids, lexical, cosine, semantic)


def ordered(scores: dict[str, float], prior: dict[str, int]) -> list[tuple[str, float]]:
    """Best first; ties go to the better lexical rank, then the smaller id."""
    return sorted(scores.items(), key=lambda item: (-item[1], prior.get(item[0], POOL + 1), item[0]))


def spread(values: dict[str, float]) -> dict[str, float]:
    """Min-max to [0, 1] over the given candidates."""
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    width = high - low
    return {key: (value - low) / width if width else 1.0 for key, value in values.items()}


def semantic_alone(data: Prepared) -> Ranker:
    return lambda query: data.semantic[query][:10]


def rrf(data: Prepared, k: int) -> Ranker:
    def rank(query: str) -> list[tuple[str, float]]:
        lexical = data.lexical[query]
        prior = {key: n for n, (key, _) in enumerate(lexical)}
        scores: dict[str, float] = {}
        for hits in (lexical, data.semantic[query]):
            for n, (key, _) in enumerate(hits, 1):
                scores[key] = scores.get(key, 0.0) + 1 / (k + n)
        return ordered(scores, prior)[:10]

    return rank


def weighted(data: Prepared, weight: float, *, minmax: bool) -> Ranker:
    """lh's score plus `weight` times the cosine over the union of both top-POOL lists."""
    position = {key: n for n, key in enumerate(data.ids)}

    def rank(query: str) -> list[tuple[str, float]]:
        lexical = dict(data.lexical[query])
        prior = {key: n for n, (key, _) in enumerate(data.lexical[query])}
        pool = set(lexical).union(key for key, _ in data.semantic[query])
        cosines = {key: float(data.cosine[query][position[key]]) for key in pool}
        if minmax:
            lexical, cosines = spread(lexical), spread(cosines)
        scores = {key: lexical.get(key, 0.0) + weight * cosines[key] for key in pool}
        return ordered(scores, prior)[:10]

    return rank


def rerank(data: Prepared, top: int, weight: float, *, minmax: bool, fill: bool = True, floor: float = 0.0) -> Ranker:
    """lh's top `top` (those scoring at least `floor`) re-ranked by lh's score plus `weight` times
    the cosine; with `fill`, when lh returns fewer than ten, the best cosine hits it lacks fill the
    list up to ten (lexical score 0)."""
    position = {key: n for n, key in enumerate(data.ids)}

    def rank(query: str) -> list[tuple[str, float]]:
        hits = [(key, score) for key, score in data.lexical[query][:top] if score >= floor]
        lexical = dict(hits)
        prior = {key: n for n, (key, _) in enumerate(hits)}
        for key, _ in data.semantic[query] if fill else ():
            if len(lexical) >= 10:
                break
            lexical.setdefault(key, 0.0)
        cosines = {key: float(data.cosine[query][position[key]]) for key in lexical}
        if minmax:
            lexical, cosines = spread(lexical), spread(cosines)
        scores = {key: lexical[key] + weight * cosines[key] for key in lexical}
        return ordered(scores, prior)[:10]

    return rank


@dataclass(frozen=True)
class Hybrid:
    """One fusion of lh and the cosine, with its parameters."""

    family: str  # "rrf", "sum" or "rerank"
    k: int = 0
    top: int = 0
    weight: float = 0.0
    minmax: bool = False
    fill: bool = True
    floor: float = 0.0

    @property
    def label(self) -> str:
        if self.family == "rrf":
            return f"rrf k={self.k}"
        head = f"sum w={self.weight}" if self.family == "sum" else f"rerank N={self.top} w={self.weight}"
        tail = (" minmax" if self.minmax else "") + ("" if self.fill else " no fill")
        return head + tail + (f" lh>={self.floor}" if self.floor else "")

    def ranker(self, data: Prepared) -> Ranker:
        if self.family == "rrf":
            return rrf(data, self.k)
        if self.family == "sum":
            return weighted(data, self.weight, minmax=self.minmax)
        return rerank(data, self.top, self.weight, minmax=self.minmax, fill=self.fill, floor=self.floor)


GRID = [Hybrid("rrf", k=k) for k in (10, 30, 60)] + [
    spec
    for minmax in (False, True)
    for spec in [Hybrid("sum", weight=w, minmax=minmax) for w in WEIGHTS]
    + [Hybrid("rerank", top=n, weight=w, minmax=minmax) for n in (20, 50, 100) for w in WEIGHTS]
]


def halves(queries: list[dict[str, Any]], qrels: dict[str, set[str]]) -> dict[str, list[dict[str, Any]]]:
    """evaluate.py's held-out subsets: each set, all, and the even/odd halves without fresh and later."""
    answerable = [q for q in queries if qrels[q["qid"]]]
    sets = sorted({q["set"] for q in answerable})
    subsets = {name: [q for q in answerable if q["set"] == name] for name in sets}
    subsets["all"] = answerable
    earlier = [q for q in answerable if q["set"] not in UNSEEN]
    subsets["even"], subsets["odd"] = earlier[0::2], earlier[1::2]
    return subsets


def cell(found: dict[str, float]) -> str:
    return f"{found['R@1']:.2f} / {found['R@5']:.2f} / {found['R@10']:.3f} / {found['MRR@10']:.3f}"


def grid(
    title: str, rows: dict[str, list[dict[str, Any]]], columns: list[tuple[str, Ranker]], qrels: dict[str, set[str]]
) -> None:
    print(f"\n### {title}: R@1 / R@5 / R@10 / MRR@10\n")
    print("| set (queries) | " + " | ".join(label for label, _ in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for name, subset in rows.items():
        cells = " | ".join(cell(metrics(rank, subset, qrels)) for _, rank in columns)
        print(f"| {name} ({sum(1 for q in subset if qrels[q['qid']])}) | {cells} |")


def pick(
    prepared: dict[str, Prepared], even: list[dict[str, Any]], qrels: dict[str, set[str]]
) -> list[tuple[Hybrid, float, float]]:
    """Every hybrid's R@10 and MRR@10 on the even half, averaged over the corpora given, best first."""
    scored = []
    for spec in GRID:
        found = [metrics(spec.ranker(data), even, qrels) for data in prepared.values()]
        scored.append((spec, statistics.mean(f["R@10"] for f in found), statistics.mean(f["MRR@10"] for f in found)))
    return sorted(scored, key=lambda row: -(row[1] + row[2]))


def per_query(rank: Ranker, subset: list[dict[str, Any]], qrels: dict[str, set[str]]) -> list[dict[str, float]]:
    return [metrics(rank, [query], qrels) for query in subset]


def paired(
    base: Ranker, other: Ranker, subset: list[dict[str, Any]], qrels: dict[str, set[str]], rounds: int = 2000
) -> str:
    """Mean difference in R@10 and MRR@10 with a paired bootstrap 95% interval, and questions won/lost on MRR."""
    import random

    before, after = per_query(base, subset, qrels), per_query(other, subset, qrels)
    rng = random.Random(19)
    cells = []
    for name in ("R@10", "MRR@10"):
        deltas = [b[name] - a[name] for a, b in zip(before, after, strict=True)]
        means = sorted(statistics.fmean(rng.choices(deltas, k=len(deltas))) for _ in range(rounds))
        low, high = means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]
        cells.append(f"{statistics.fmean(deltas):+.3f} [{low:+.3f}, {high:+.3f}]")
    won = sum(1 for a, b in zip(before, after, strict=True) if b["MRR@10"] > a["MRR@10"])
    lost = sum(1 for a, b in zip(before, after, strict=True) if b["MRR@10"] < a["MRR@10"])
    return " | ".join(cells) + f" | {won} / {lost}"


def quality() -> None:
    wl = model()
    _, queries, qrels = load_heldout()
    texts = [q["query"] for q in queries]
    corpora = {"alone": load_heldout()[0], "mixed": load_heldout(mixed=True)[0]}
    prepared = {name: prepare(corpus, texts, wl) for name, corpus in corpora.items()}
    raw = {name: prepare(corpus, texts, wl, norm=False) for name, corpus in corpora.items()}
    subsets = halves(queries, qrels)
    checks = {k: subsets[k] for k in ("even", "odd", "fresh", "later", "all")}

    print("## held-out hybrids picked on the even half (mean of alone and mixed): best 12, then each family's best\n")
    ranking = pick(prepared, subsets["even"], qrels)
    lh_even = [metrics(lh_ranker(corpus), subsets["even"], qrels) for corpus in corpora.values()]
    print("| hybrid | R@10 | MRR@10 |\n|---|---:|---:|")
    print(
        f"| lh (for comparison) | {statistics.mean(f['R@10'] for f in lh_even):.3f} |"
        f" {statistics.mean(f['MRR@10'] for f in lh_even):.3f} |"
    )
    bests = [
        next(row for row in ranking if row[0].family == family and (family != "rerank" or row[0].top == top))
        for family, top in (("rrf", 0), ("sum", 0), ("rerank", 20), ("rerank", 50), ("rerank", 100))
    ]
    for spec, recall, mrr in dict.fromkeys(ranking[:12] + bests):
        print(f"| {spec.label} | {recall:.3f} | {mrr:.3f} |")
    chosen = ranking[0][0]
    print(f"\nchosen hybrid: {chosen.label}")

    print("\n### each family's best (picked on even) checked on the other sets: R@10 / MRR@10\n")
    print("| ranker | " + " | ".join(f"{c} {k}" for c in corpora for k in checks) + " |")
    print("|---|" + "---:|" * (len(corpora) * len(checks)))
    rows: list[tuple[str, Callable[[str], Ranker]]] = [
        ("lh", lambda name: lh_ranker(corpora[name])),
        ("bm25s + stemmer", lambda name: bm25s_ranker(corpora[name], stemmed=True)),
        ("wordllama alone", lambda name: semantic_alone(prepared[name])),
    ]
    rows += [(spec.label, lambda name, spec=spec: spec.ranker(prepared[name])) for spec, _, _ in bests]
    print_rows(rows, corpora, checks, qrels)

    for name, data in prepared.items():
        short = sum(1 for q in subsets["all"] if len(data.lexical[q["query"]]) < 10)
        print(f"\n{name}: lh returns fewer than 10 hits for {short} of {len(subsets['all'])} answerable questions")
    for name, corpus in corpora.items():
        columns = [
            ("lh", lh_ranker(corpus)),
            ("wordllama (normalised)", semantic_alone(prepared[name])),
            ("wordllama (raw dot)", semantic_alone(raw[name])),
            (f"hybrid: {chosen.label}", chosen.ranker(prepared[name])),
            ("bm25s + stemmer", bm25s_ranker(corpus, stemmed=True)),
        ]
        grid(f"held-out notes {name} ({len(corpus)} entries)", subsets, columns, qrels)
        issue_ranks(columns, queries, qrels)

    print(
        "\n### chosen hybrid minus baseline, per question: mean [paired bootstrap 95%], questions won / lost on MRR\n"
    )
    print("| corpus, set | vs | R@10 | MRR@10 | won / lost |\n|---|---|---|---|---|")
    for name, corpus in corpora.items():
        hybrid = chosen.ranker(prepared[name])
        for base_label, base in (("lh", lh_ranker(corpus)), ("bm25s + stemmer", bm25s_ranker(corpus, stemmed=True))):
            for key, subset in checks.items():
                print(f"| {name}, {key} | {base_label} | {paired(base, hybrid, subset, qrels)} |")

    if chosen.family == "rerank":
        print("\n### the chosen re-ranking without the semantic fill, and at lh's default min_score: R@10 / MRR@10\n")
        floor = search.DEFAULT_MIN_SCORE
        print("| ranker | " + " | ".join(f"{c} {k}" for c in corpora for k in checks) + " |")
        print("|---|" + "---:|" * (len(corpora) * len(checks)))
        variants: list[tuple[str, Callable[[str], Ranker]]] = [
            ("lh", lambda name: lh_ranker(corpora[name])),
            (chosen.label, lambda name: chosen.ranker(prepared[name])),
            ("  no fill", lambda name: replace(chosen, fill=False).ranker(prepared[name])),
            (f"lh at min_score {floor}", lambda name: above(lh_ranker(corpora[name]), floor)),
            (
                f"  re-ranked, no fill, lh >= {floor}",
                lambda name: replace(chosen, fill=False, floor=floor).ranker(prepared[name]),
            ),
            (f"  re-ranked, fill, lh >= {floor}", lambda name: replace(chosen, floor=floor).ranker(prepared[name])),
        ]
        print_rows(variants, corpora, checks, qrels)

    print("\n### Matryoshka truncation and float16 storage: R@10 / MRR@10\n")
    print("| model | " + " | ".join(f"{c} {k}" for c in corpora for k in checks) + " |")
    print("|---|" + "---:|" * (len(corpora) * len(checks)))
    sizes: list[tuple[str, int, bool]] = [(f"{d} dims", d, False) for d in DIMS] + [("256 dims float16", 256, True)]
    for label, dim, half in sizes:
        small = wl if dim == 256 else model(dim)
        data = {name: prepare(corpus, texts, small, half=half) for name, corpus in corpora.items()}
        for kind in ("wordllama", "hybrid"):
            cells = []
            for name in corpora:
                rank = semantic_alone(data[name]) if kind == "wordllama" else chosen.ranker(data[name])
                cells += [
                    f"{m['R@10']:.3f} / {m['MRR@10']:.3f}" for m in (metrics(rank, q, qrels) for q in checks.values())
                ]
            print(f"| {kind}, {label} | " + " | ".join(cells) + " |")

    corpus, project_queries, project_qrels = load()
    data = prepare(corpus, [q["query"] for q in project_queries], wl)
    columns = [
        ("lh", lh_ranker(corpus)),
        ("wordllama (normalised)", semantic_alone(data)),
        (f"hybrid: {chosen.label}", chosen.ranker(data)),
        ("bm25s + stemmer", bm25s_ranker(corpus, stemmed=True)),
    ]
    halves_of = {"all": project_queries, "even": project_queries[0::2], "odd": project_queries[1::2]}
    grid(f"project corpus ({len(corpus)} entries; lh's parameters fitted to it)", halves_of, columns, project_qrels)


def print_rows(
    rows: list[tuple[str, Callable[[str], Ranker]]],
    corpora: dict[str, list[dict[str, Any]]],
    checks: dict[str, list[dict[str, Any]]],
    qrels: dict[str, set[str]],
) -> None:
    """One table row per ranker maker: R@10 / MRR@10 on each corpus and each set of questions."""
    for label, make in rows:
        cells = []
        for name in corpora:
            rank = make(name)
            cells += [
                f"{m['R@10']:.3f} / {m['MRR@10']:.3f}" for m in (metrics(rank, q, qrels) for q in checks.values())
            ]
        print(f"| {label} | " + " | ".join(cells) + " |")


def above(rank: Ranker, floor: float) -> Ranker:
    return lambda query: [(key, score) for key, score in rank(query) if score >= floor]


def cpu_ms(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU time (user + system) of one child process, in ms."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    if status:
        raise SystemExit(f"semantic_probe: {argv} failed with status {status}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def cost(runs: int = 15) -> None:
    import numpy as np

    print("\n## cost (CPU ms = user + system, medians)\n")
    setup = "import wordllama, pathlib; from wordllama import WordLlama; f = pathlib.Path(wordllama.__file__).parent"
    scripts = {
        "import numpy": "import numpy",
        "import wordllama": "import wordllama",
        "import + load model": f"{setup}; WordLlama.load(cache_dir=f, disable_download=True)",
        "import + load + embed one query": (
            f"{setup}; WordLlama.load(cache_dir=f, disable_download=True)"
            ".embed(['disk full on build machine'], norm=True)"
        ),
    }
    # The same bundled files read without the wordllama module (which pulls in pydantic and requests):
    # the tokenizer, the embedding table and a mean of the query's token vectors, as an extra could do.
    scripts["numpy + tokenizers + safetensors, bundled files, embed one query"] = (
        "import importlib.util, pathlib, numpy as np; from tokenizers import Tokenizer;"
        " from safetensors import safe_open;"
        " f = pathlib.Path(importlib.util.find_spec('wordllama').origin).parent;"
        " t = Tokenizer.from_file(str(f / 'tokenizers' / 'l2_supercat_tokenizer_config.json'));"
        " w = safe_open(str(f / 'weights' / 'l2_supercat_256.safetensors'), 'np').get_tensor('embedding.weight');"
        " v = w[t.encode('disk full on build machine', add_special_tokens=False).ids].mean(0); v /= np.linalg.norm(v)"
    )
    times: dict[str, list[float]] = {name: [] for name in ["python -c pass", *scripts]}
    for _ in range(runs):
        times["python -c pass"].append(cpu_ms([sys.executable, "-c", "pass"]))
        for name, script in scripts.items():
            times[name].append(cpu_ms([sys.executable, "-c", script]))
    bare = statistics.median(times["python -c pass"])
    print("| fresh process | CPU ms | x bare |\n|---|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.0f} | {statistics.median(values) / bare:.1f} |")

    loads = []
    for _ in range(7):
        start = time.process_time()
        wl = model()
        loads.append((time.process_time() - start) * 1000)
    _, queries, _ = load_heldout()
    single = []
    for query in queries:
        start = time.process_time_ns()
        wl.embed([query["query"]], norm=True)
        single.append((time.process_time_ns() - start) / 1e6)
    from make_corpus import synthetic

    entries = [entry_text(e) for e in synthetic(10_001)]
    texts = [f"{text} {after}"[:300] for text, after in itertools.pairwise(entries)]
    bulk = []
    for _ in range(3):
        start = time.process_time()
        vectors = wl.embed(texts, norm=True)
        bulk.append(time.process_time() - start)
    lookups = []
    for query in queries:
        start = time.process_time_ns()
        vector = wl.embed([query["query"]], norm=True)[0]
        np.argpartition(-(vectors @ vector), 10)[:10]
        lookups.append((time.process_time_ns() - start) / 1e6)
    print(
        f"\nin process: load model {statistics.median(loads):.0f} ms;"
        f" embed one query {statistics.median(single):.2f} ms;"
    )
    print(
        f"embed 10,000 entries (mean {statistics.mean(map(len, texts)):.0f} chars) {statistics.median(bulk):.2f} s;"
        f" embed a query + cosine top-10 over 10,000 vectors {statistics.median(lookups):.2f} ms"
    )
    print("\n| 10,000 vectors | float32 | float16 |\n|---|---:|---:|")
    for dim in DIMS:
        part = vectors[:, :dim]
        print(f"| {dim} dims | {part.nbytes / 1e6:.2f} MB | {part.astype(np.float16).nbytes / 1e6:.2f} MB |")
    cost_query(wl, queries)


# One `lh memory get --query` with the chosen re-ranking, as a fresh process would run it: lh's
# top 50 from the index file, the query embedded from the bundled files (or through the wordllama
# module), the stored entry vectors loaded, min-max blend of both scores, top 10.
QUERY_SCRIPT = """
import sys
from pathlib import Path
from lean_harness.memory.search import segment
from lean_harness.memory.search.search import Index
index_path, vectors_path, ids_path, query, how = sys.argv[1:6]
parts = [segment.from_bytes(p.read_bytes(), p.stem)[1] for p in sorted(Path(index_path).glob('*.idx'))]
hits = Index(parts).search(query, limit=50)
with open(ids_path, encoding='utf-8') as f:
    row = {key: n for n, key in enumerate(f.read().split())}
if how == 'pure':  # no numpy: float16 rows read with struct from the weights and the vectors file
    import importlib.util, json, math, pathlib, struct
    from tokenizers import Tokenizer
    folder = pathlib.Path(importlib.util.find_spec('wordllama').origin).parent
    tokens = Tokenizer.from_file(str(folder / 'tokenizers' / 'l2_supercat_tokenizer_config.json'))
    dim = int(vectors_path.rsplit('v', 1)[1].split('.')[0])
    with open(folder / 'weights' / 'l2_supercat_256.safetensors', 'rb') as f:
        size = struct.unpack('<Q', f.read(8))[0]
        table = json.loads(f.read(size))['embedding.weight']
        start, width = 8 + size + table['data_offsets'][0], table['shape'][1]
        asked = [0.0] * dim
        for token in tokens.encode(query, add_special_tokens=False).ids:
            f.seek(start + token * width * 2)
            asked = [a + b for a, b in zip(asked, struct.unpack(f'<{dim}e', f.read(dim * 2)))]
    norm = math.sqrt(sum(a * a for a in asked)) or 1.0
    cosine = []
    with open(vectors_path, 'rb') as f:
        for h in hits:
            f.seek(row[h.id] * dim * 2)
            cosine.append(sum(a * b for a, b in zip(asked, struct.unpack(f'<{dim}e', f.read(dim * 2)))) / norm)
    lexical = [h.score for h in hits]
    def spread(v):
        low, high = min(v, default=0.0), max(v, default=0.0)
        return [(x - low) / (high - low) if high > low else 1.0 for x in v]
    blend = [a + 0.9 * b for a, b in zip(spread(lexical), spread(cosine))]
    order = sorted(range(len(hits)), key=lambda n: -blend[n])[:10]
elif how != 'lh':
    import numpy as np
    vectors = np.load(vectors_path)
    if how == 'module':
        import pathlib, wordllama
        folder = pathlib.Path(wordllama.__file__).parent
        model = wordllama.WordLlama.load(cache_dir=folder, disable_download=True)
        asked = model.embed([query], norm=True)[0][: vectors.shape[1]]
    else:
        import importlib.util, pathlib
        from safetensors import safe_open
        from tokenizers import Tokenizer
        folder = pathlib.Path(importlib.util.find_spec('wordllama').origin).parent
        tokens = Tokenizer.from_file(str(folder / 'tokenizers' / 'l2_supercat_tokenizer_config.json'))
        with safe_open(str(folder / 'weights' / 'l2_supercat_256.safetensors'), 'np') as table:
            ids = tokens.encode(query, add_special_tokens=False).ids
            asked = table.get_tensor('embedding.weight')[ids].astype(np.float32).mean(0)[: vectors.shape[1]]
    asked = asked / np.linalg.norm(asked)
    cosine = vectors[[row[h.id] for h in hits]].astype(np.float32) @ asked
    lexical = np.array([h.score for h in hits])
    def spread(v):
        return (v - v.min()) / (v.max() - v.min()) if len(v) and v.max() > v.min() else np.ones_like(v)
    order = np.argsort(-(spread(lexical) + 0.9 * spread(cosine)), kind='stable')[:10]
else:
    order = range(min(10, len(hits)))
print(' '.join(hits[n].id for n in order))
"""


def cost_query(wl: Any, queries: list[dict[str, Any]], runs: int = 15) -> None:
    """CPU ms of a fresh process answering one query at 10,000 entries, lexical alone and re-ranked."""
    import tempfile

    import numpy as np
    from make_corpus import synthetic

    entries = synthetic(10_000)
    blob = shard_files(docs_of(entries))
    vectors = wl.embed([entry_text(e) for e in entries], norm=True).astype(np.float16)
    env = {
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
        "PATH": os.environ.get("PATH", ""),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1"),
    }
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        (base / "index").mkdir()
        for name, data in blob.items():
            (base / "index" / f"{name}.idx").write_bytes(data)
        (base / "ids.txt").write_text("\n".join(str(e["id"]) for e in entries), encoding="utf-8")
        for dim in (64, 256):
            np.save(base / f"v{dim}.npy", np.ascontiguousarray(vectors[:, :dim]))
            (base / f"v{dim}.f16").write_bytes(np.ascontiguousarray(vectors[:, :dim]).astype("<f2").tobytes())
        cases = {
            "lh alone (index file + search)": ("v256.npy", "lh"),
            "lh + re-rank, wordllama module, 256 dims": ("v256.npy", "module"),
            "lh + re-rank, bundled files read directly, 256 dims": ("v256.npy", "files"),
            "lh + re-rank, bundled files read directly, 64 dims": ("v64.npy", "files"),
            "lh + re-rank, no numpy (struct), 256 dims": ("v256.f16", "pure"),
            "lh + re-rank, no numpy (struct), 64 dims": ("v64.f16", "pure"),
        }
        answers: dict[str, list[str]] = {name: [] for name in cases}
        for query in queries[:20]:
            for name, (vectors_name, how) in cases.items():
                argv = [sys.executable, "-c", QUERY_SCRIPT, str(base / "index"), str(base / vectors_name)]
                done = subprocess.run(
                    [*argv, str(base / "ids.txt"), query["query"], how],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                answers[name].append(done.stdout)
        reference = answers["lh + re-rank, wordllama module, 256 dims"]
        same = {name: sum(a == b for a, b in zip(found, reference, strict=True)) for name, found in answers.items()}
        print(
            "\nsame top 10 as the wordllama module's re-ranking, of 20 queries: "
            + ", ".join(f"{k}: {v}" for k, v in same.items())
        )
        times: dict[str, list[float]] = {name: [] for name in ["python -c pass", *cases]}
        for n in range(runs):
            query = queries[n % len(queries)]["query"]
            times["python -c pass"].append(cpu_ms([sys.executable, "-c", "pass"], env))
            for name, (vectors_name, how) in cases.items():
                argv = [sys.executable, "-c", QUERY_SCRIPT, str(base / "index"), str(base / vectors_name)]
                times[name].append(cpu_ms([*argv, str(base / "ids.txt"), query, how], env))
    bare = statistics.median(times["python -c pass"])
    print("\n| one query at 10,000 entries, fresh process | CPU ms | x bare |\n|---|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.0f} | {statistics.median(values) / bare:.1f} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cost", action="store_true", help="also time import, load and embedding")
    parser.add_argument("--cost-only", action="store_true", help="only the cost tables")
    args = parser.parse_args(argv)
    # lh answers a query on one thread; so does the cosine here, and BLAS threads spinning on a
    # shared machine would count as CPU time.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        import numpy  # noqa: F401
        import wordllama  # noqa: F401
    except ImportError:
        print("semantic_probe: wordllama is not installed; `pip install 'wordllama>=0.4,<0.5'` to run this probe")
        return 2
    try:
        import bm25s  # noqa: F401
        import Stemmer  # noqa: F401
    except ImportError:
        print("semantic_probe: bm25s or PyStemmer is not installed; install the `bench` dependency group")
        return 2
    logging.getLogger().setLevel(logging.WARNING)  # importing wordllama turns on debug logging for every library
    if not args.cost_only:
        quality()
    if args.cost or args.cost_only:
        cost()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
