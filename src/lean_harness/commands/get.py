"""`lh memory get`: a shard's entries, or with --query the entries that best match."""

from __future__ import annotations

import argparse
import sys

from lean_harness import usage
from lean_harness.commands import emit, open_memory, positive
from lean_harness.errors import LhError

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from lean_harness.memory.search.search import Hit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shard", metavar="SHARD", nargs="?", help="the shard to print (with --query: a filter)")
    parser.add_argument("--query", "-q", metavar="TEXT", help="words, identifiers or an error message to look for")
    parser.add_argument("--limit", type=positive, default=8, metavar="K", help="at most K entries (default 8)")
    parser.add_argument(
        "--max-tokens", type=positive, default=1500, metavar="N", help="at most N tokens in all (default 1500)"
    )
    parser.add_argument("--shard", dest="shards", action="append", default=[], metavar="S", help="only shard S")
    parser.add_argument("--tag", dest="tags", action="append", default=[], metavar="T", help="only entries tagged T")
    parser.add_argument(
        "--min-score",
        type=float,
        metavar="X",
        help="keep entries scoring X or more (1.0 is every query word matched once), not those holding a query word",
    )
    parser.add_argument("--ids", action="store_true", help="print every entry's id (to update it with put --id)")
    told = parser.error

    def error(message: str) -> NoReturn:
        # argparse takes a word that starts with "-" for an option, never for --query's value
        if message == "argument --query/-q: expected one argument":
            message += '; for a query that starts with "-", join it with "=": --query="--words"'
        told(message)

    parser.error = error  # type: ignore[method-assign]


def run(args: argparse.Namespace) -> int:
    if args.query is not None:
        return _query(args)
    if args.shard is None:
        raise LhError('name a shard or a query: lh memory get SHARD, or lh memory get --query "words"')
    from lean_harness.memory import prose, view
    from lean_harness.memory.leaks import mask_entry, mask_text
    from lean_harness.memory.shard import parse
    from lean_harness.scanning.masking import neutralise

    memory = open_memory()
    memory.check_dir()
    name = memory.check_shard(args.shard)
    shown = memory.shown(memory.shard_path(name))
    with memory.reading():
        shard = parse(memory.read_shard(name)[0], shown)
        cited = _cited(memory, [(name, e.id, e.attr("refs") or "") for e in shard.entries])
    printed: list[tuple[int, str, dict[str, object]]] = []  # (line, block, its --json row)
    rows: list[dict[str, object]] = []
    warnings: list[str] = []
    for entry in shard.entries:
        text, findings = mask_entry(entry)
        mark = _stale_mark(cited.get((name, entry.id)))  # said at the end of the header line
        block = view.entry_block(entry, neutralise(text), ids=args.ids).replace("\n", f"{mark}\n", 1)
        rows.append(
            {
                "id": entry.id,
                "shard": name,
                "created": entry.created,
                "tags": list(entry.tags),
                "tokens": 0,
                "text": neutralise(text),
                **_evidence_json(cited.get((name, entry.id))),
            }
        )
        printed.append((entry.line, block, rows[-1]))
        warnings += [
            f"{shown}:{entry.line + f.line}: entry {entry.id} holds what looks like {f.description} (masked here)"
            for f in findings
        ]
    prose_rows: list[dict[str, object]] = []
    for item in prose.blocks(shard):
        text, findings = mask_text(item.text)
        text = neutralise(text)
        prose_rows.append({"line": item.line, "end": item.end, "tokens": 0, "text": text})
        printed.append((item.line, view.prose_block(item, text), prose_rows[-1]))
        warnings += [
            f"{shown}:{item.line + f.line - 1}: prose holds what looks like {f.description} (masked here)"
            for f in findings
        ]
    printed.sort(key=lambda item: item[0])
    with memory.reading():
        counts = view.costs([block for _, block, _ in printed], memory.counter.counts)
    for (_, _, row), count in zip(printed, counts, strict=True):
        row["tokens"] = count
    usage.record(memory.root, "get", [(name, e.id) for e in shard.entries if e.id not in memory.summary(name).leaked])
    if args.json:
        emit(
            "memory get",
            {"shard": name, "entries": rows, "prose": prose_rows, "total_tokens": sum(counts)},
            warnings,
        )
        return 0
    for line in warnings[:1]:
        more = f" and {len(warnings) - 1} more" if len(warnings) > 1 else ""
        print(f'warning: {line}{more}; run "lh memory scan"', file=sys.stderr)
    if not printed:
        print(f"{name}: no entries")
    sys.stdout.write(view.page([block for _, block, _ in printed]))
    return 0


def _query(args: argparse.Namespace) -> int:
    from lean_harness.memory.search import query
    from lean_harness.scanning.masking import neutralise

    memory = open_memory()
    answer = query.ask(
        memory,
        args.query,
        limit=args.limit,
        max_tokens=args.max_tokens,
        shards=[*([args.shard] if args.shard else []), *args.shards],
        tags=args.tags,
        min_score=args.min_score,
        headers=not args.json,  # printed as text, each entry's header line counts too
    )
    usage.record(memory.root, "query", [(r.shard, r.id) for r in answer.results if r.id], query=args.query)
    cited = _cited(memory, [(r.shard, r.id, r.refs) for r in answer.results])
    warnings = [
        f"{memory.shown(memory.shard_path(r.shard))}"
        + (f": entry {r.id}" if r.id else f":{r.line}: prose")
        + ' holds what looks like a credential (masked here); run "lh memory scan"'
        for r in answer.results
        if r.masked
    ]
    if args.json:
        rows = [
            {
                "id": r.id,
                "shard": r.shard,
                "score": r.score,
                "weak": r.weak,
                "tokens": r.tokens,
                "created": r.created,
                "tags": list(r.tags),
                "text": neutralise(r.text),
                "cut": r.cut,
                "matched": list(r.matched),
                **_evidence_json(cited.get((r.shard, r.id))),
                **({"line": r.line} if not r.id else {}),
            }
            for r in answer.results
        ]
        emit("memory get", {"query": answer.query, "results": rows, "total_tokens": answer.total_tokens}, warnings)
        return 0
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    if answer.needs:
        print(f"nothing printed: the best entry takes {answer.needs} tokens cut to its header line; raise --max-tokens")
    elif not answer.results:
        empty = 'memory is empty: nothing to search yet; add a note with lh memory put SHARD "text"'
        print(_nothing(answer.nearest, args.min_score) if answer.searched else empty)
    for number, r in enumerate(answer.results):
        shown = memory.shown(memory.shard_path(r.shard))
        print(("\n" if number else "") + query.heading(r, shown) + _stale_mark(cited.get((r.shard, r.id))))
        print(r.text)  # masked and neutralised as counted (memory/query.py)
    return 0


def _nothing(nearest: Hit | None, min_score: float | None) -> str:
    """The one line that says a query found nothing good enough, and what came closest."""
    if nearest is None:
        return "nothing matched: no entry holds any word of the query; try other words"
    if min_score is None:
        return (
            f"nothing matched: no entry holds any word of the query; the closest, {nearest.shard}/{nearest.id},"
            f" holds only words related to them (score {nearest.score:.2f}); try other words, or --min-score 0"
        )
    holds = (
        f"it holds: {', '.join(nearest.matched)}"
        if nearest.matched
        else "it holds none of the query's words, only words related to them"
    )
    return (
        f"nothing matched well: the closest entry, {nearest.shard}/{nearest.id}, scores {nearest.score:.2f},"
        f" below --min-score {min_score:g} ({holds}); try other words, or --min-score 0"
    )


def _cited(memory: Any, entries: list[tuple[str, str, str]]) -> dict[tuple[str, str], Any]:
    """The reference state of the entries that cite files (none are read when no entry does)."""
    if not any(value for _, _, value in entries):
        return {}
    from lean_harness.memory.evidence import stale

    return stale.of_entries(memory, entries)


def _evidence_json(cited: Any) -> dict[str, Any]:
    from lean_harness.commands.verify import reference_json

    if cited is None:
        return {"stale": False, "refs": []}
    return {"stale": cited.stale, "refs": [reference_json(f) for f in cited.findings]}


def _stale_mark(cited: Any) -> str:
    """A note after an entry's header line when a reference it cites changed or is gone."""
    if cited is None or not cited.stale:
        return ""
    if cited.problem:
        return ' [stale: its refs attribute cannot be read; run "lh memory verify"]'
    gone = ", ".join(f"{f.anchor.spec} {f.status}" for f in cited.findings if f.stale)
    return f' [stale: {gone}; run "lh memory verify"]'
