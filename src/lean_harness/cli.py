"""The `lh` command line: parse, dispatch, render, pick the exit code. The only module that prints.

Exit codes: 0 ok; 1 ran and found a problem (a refused credential, a stale index); 2 could
not do what was asked; 130 interrupted; 70 a bug (the traceback is shown).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lean_harness import __version__
from lean_harness.errors import LhError

JSON_VERSION = 1
Handler = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Run `lh` with `argv` (default: the process arguments) and return the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        if args.directory is not None:
            os.chdir(args.directory)
        return handler(args)
    except LhError as error:
        print(error.message, file=sys.stderr)
        return error.exit_code
    except FileNotFoundError as error:
        print(f"{error.filename or error}: no such file or folder", file=sys.stderr)
        return 2
    except PermissionError as error:
        print(f"{error.filename or error}: permission denied", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except Exception:
        import traceback

        traceback.print_exc()
        print("lh: this is a bug in lean-harness; please report it with the traceback above", file=sys.stderr)
        return 70


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lh",
        description="lean-harness: a lean, file-only project memory for coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"lh {__version__}")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    init = commands.add_parser("init", help="set up the config, memory and .gitignore block here")
    init.add_argument(
        "--force",
        action="store_true",
        help="replace the config with defaults (kept as .bak) or adopt an existing memory dir",
    )
    init.add_argument("--json", action="store_true", help="print versioned JSON")
    init.set_defaults(handler=_init)

    demo = commands.add_parser("demo", help="show lh at work in a throwaway project")
    demo.set_defaults(handler=_demo)

    config = commands.add_parser("config", help="show, change or describe the config")
    config_commands = config.add_subparsers(title="config commands", metavar="ACTION")
    show = config_commands.add_parser("show", help="print the effective config, defaults included")
    show.add_argument("--json", action="store_true", help="print versioned JSON")
    show.set_defaults(handler=_config_show)
    set_ = config_commands.add_parser("set", help="set one key (validated before anything is written)")
    set_.add_argument("key", metavar="KEY", help="a dotted key path, for instance memory.tokenBudget")
    set_.add_argument("value", metavar="VALUE", help='a TOML value (30000, true, ["a"]) or plain text')
    set_.add_argument("--drop-comments", action="store_true", help="rewrite a config that has comments, dropping them")
    set_.set_defaults(handler=_config_set)
    schema = config_commands.add_parser("schema", help="print the config's JSON Schema")
    schema.set_defaults(handler=_config_schema)
    config.set_defaults(handler=_help(config))

    memory = commands.add_parser("memory", help="write, read and index project memory")
    memory_commands = memory.add_subparsers(title="memory commands", metavar="ACTION")
    put = memory_commands.add_parser("put", help="store a note in a shard (TEXT - reads stdin)")
    put.add_argument("shard", metavar="SHARD")
    put.add_argument("text", metavar="TEXT")
    put.add_argument("--tag", action="append", default=[], metavar="T", help="a tag (repeatable)")
    put.add_argument("--id", dest="key", metavar="KEY", help="update the entry KEY in place, or create it")
    put.add_argument(
        "--allow-secret",
        action="append",
        default=[],
        metavar="RULE",
        help="store despite a finding of scanner rule RULE (recorded in the entry)",
    )
    put.add_argument("--json", action="store_true", help="print versioned JSON")
    put.set_defaults(handler=_memory_put)
    get = memory_commands.add_parser("get", help="print a shard's entries, or with --query the entries that best match")
    get.add_argument("shard", metavar="SHARD", nargs="?", help="the shard to print (with --query: a filter)")
    get.add_argument("--query", "-q", metavar="TEXT", help="words, identifiers or an error message to look for")
    get.add_argument("--limit", type=_positive, default=8, metavar="K", help="at most K entries (default 8)")
    get.add_argument(
        "--max-tokens", type=_positive, default=1500, metavar="N", help="at most N tokens in all (default 1500)"
    )
    get.add_argument("--shard", dest="shards", action="append", default=[], metavar="S", help="only shard S")
    get.add_argument("--tag", dest="tags", action="append", default=[], metavar="T", help="only entries tagged T")
    get.add_argument(
        "--min-score",
        type=float,
        default=None,
        metavar="X",
        help="drop entries scoring below X (default 0.35; 1.0 is every query word matched once)",
    )
    get.add_argument("--json", action="store_true", help="print versioned JSON")
    get.set_defaults(handler=_memory_get)
    lint = memory_commands.add_parser("lint", help="list entries their own first line does not find (top 5)")
    lint.add_argument("--json", action="store_true", help="print versioned JSON")
    lint.set_defaults(handler=_memory_lint)
    index = memory_commands.add_parser("index", help="regenerate INDEX.md")
    index.add_argument("--check", action="store_true", help="exit 1 when INDEX.md is stale; change nothing")
    index.add_argument("--json", action="store_true", help="print versioned JSON")
    index.set_defaults(handler=_memory_index)
    status = memory_commands.add_parser("status", help="entries and tokens per shard against the budget")
    status.add_argument("--json", action="store_true", help="print versioned JSON")
    status.set_defaults(handler=_memory_status)
    scan = memory_commands.add_parser(
        "scan", help="find credentials in memory files (or the given files); exit 1 on findings"
    )
    scan.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: the memory dir)")
    scan.add_argument("--json", action="store_true", help="print versioned JSON")
    scan.set_defaults(handler=_memory_scan)
    memory.set_defaults(handler=_help(memory))
    return parser


def _help(parser: argparse.ArgumentParser) -> Handler:
    def show(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return show


def _emit(command: str, payload: dict[str, Any], problems: Sequence[str] = ()) -> None:
    envelope = {"version": JSON_VERSION, "command": command, **payload, "problems": list(problems)}
    print(json.dumps(envelope, indent=2, ensure_ascii=False))


def _root() -> Path:
    from lean_harness.config import find_root

    return find_root(Path.cwd())


def _memory() -> Any:
    from lean_harness.config import load
    from lean_harness.memory.store import open_memory

    return open_memory(load(_root()))


def _init(args: argparse.Namespace) -> int:
    from lean_harness import init

    result = init.run(Path.cwd(), force=args.force)
    if args.json:
        _emit(
            "init", {"root": result.root.as_posix(), "created": list(result.created), "updated": list(result.updated)}
        )
        return 0
    if not result.created and not result.updated:
        print("lean-harness is already set up here; nothing changed")
        return 0
    for path in result.created:
        print(f"created {path}")
    for path in result.updated:
        print(f"updated {path}")
    print('next: lh memory put SHARD "a note", then lh memory status')
    return 0


def _demo(args: argparse.Namespace) -> int:
    import tempfile

    from lean_harness import init
    from lean_harness.config import load
    from lean_harness.memory import store

    with tempfile.TemporaryDirectory(prefix="lh-demo-") as folder:
        root = Path(folder)
        print(f"$ lh init   (in a throwaway project, {root.as_posix()})")
        result = init.run(root)
        for path in result.created:
            print(f"created {path}")
        memory = store.open_memory(load(root))
        notes = [
            (
                "failures",
                "test_lock hangs on Windows: the lock file was opened in text mode; open it binary.",
                ["windows"],
            ),
            ("conventions", "Run nox before pushing; CI runs the same sessions.", []),
        ]
        for shard, text, tags in notes:
            print(f'\n$ lh memory put {shard} "{text}"')
            _print_put(store.put(memory, shard, text, tags=tags))
        print("\n$ lh memory status")
        _print_status(store.status(memory))
        print(f"\n$ cat {memory.shown(memory.index_path)}")
        print(memory.index_path.read_text("utf-8"), end="")
    return 0


def _config_show(args: argparse.Namespace) -> int:
    from lean_harness import config

    cfg = config.load(_root())
    if args.json:
        _emit("config show", {"path": cfg.shown_path, "config": cfg.data})
    else:
        print(f"# effective config of {cfg.shown_path} (defaults included)")
        print(config.render(cfg.data), end="")
    return 0


def _config_set(args: argparse.Namespace) -> int:
    from lean_harness import config
    from lean_harness.files import read_text, write_text

    root = _root()
    path = root / config.CONFIG_PATH
    shown = path.relative_to(root).as_posix()
    text = read_text(path, root)
    if not args.drop_comments and any(line.lstrip().startswith("#") for line in text.splitlines()):
        raise LhError(
            f"{shown} has comments, which rewriting it would drop; edit the file by hand, or pass --drop-comments"
        )
    user = config.parse_toml(text, shown)
    updated = config.with_value(user, args.key, config.parse_value(args.value))
    problems = config.problems(updated)
    if problems:
        raise LhError("\n".join(f"{shown}: {line}; file not changed" for line in problems))
    write_text(path, config.render(updated))
    print(f"set {args.key} in {shown}")
    return 0


def _config_schema(args: argparse.Namespace) -> int:
    from lean_harness import schema

    print(json.dumps(schema.load("config"), indent=2))
    return 0


def _read_text_arg(value: str) -> str:
    if value != "-":
        return value
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LhError("standard input is not valid UTF-8; nothing was written") from None


def _memory_put(args: argparse.Namespace) -> int:
    from lean_harness.memory import store

    memory = _memory()
    result = store.put(
        memory, args.shard, _read_text_arg(args.text), tags=args.tag, key=args.key, allow=args.allow_secret
    )
    if args.json:
        totals = result.totals
        _emit(
            "memory put",
            {
                "id": result.id,
                "shard": result.shard,
                "action": result.action,
                "entry_tokens": result.entry_tokens,
                "shard_tokens": result.shard_tokens,
                "total_tokens": totals.tokens,
                "token_budget": totals.budget,
                "compact_threshold": totals.threshold,
                "compaction_due": totals.compaction_due,
                "encoding": result.label,
            },
        )
    else:
        _print_put(result)
    return 0


def _print_put(result: Any) -> None:
    verb = {"added": "added", "updated": "updated", "unchanged": "already stored as"}[result.action]
    totals = result.totals
    print(f"{verb} {result.id} in {result.shard} ({result.entry_tokens} tokens)")
    print(
        f"{result.shard}: {result.shard_tokens} tokens; memory: {totals.tokens} of {totals.budget} tokens"
        f" ({totals.percent}%)"
    )
    if totals.compaction_due:
        print(
            f"warning: memory is over its compaction threshold ({totals.compact_at_percent}% of {totals.budget}"
            ' tokens); run "lh memory compact"',
            file=sys.stderr,
        )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value


def _memory_get(args: argparse.Namespace) -> int:
    if args.query is not None:
        return _memory_query(args)
    if args.shard is None:
        raise LhError('name a shard or a query: lh memory get SHARD, or lh memory get --query "words"')
    from lean_harness.memory.leaks import mask_entry

    memory = _memory()
    memory.check_dir()
    name = memory.check_shard(args.shard)
    with memory.reading():
        entries = memory.entries(name)
        counts = memory.counter.counts([e.text for e in entries])
    shown = memory.shown(memory.shard_path(name))
    texts, warnings = [], []
    for entry in entries:
        text, findings = mask_entry(entry)
        texts.append(text)
        warnings += [
            f"{shown}:{entry.line + f.line}: entry {entry.id} holds what looks like {f.description} (masked here)"
            for f in findings
        ]
    if args.json:
        rows = [
            {"id": e.id, "shard": name, "created": e.created, "tags": list(e.tags), "tokens": n, "text": t}
            for e, n, t in zip(entries, counts, texts, strict=True)
        ]
        _emit("memory get", {"shard": name, "entries": rows, "total_tokens": sum(counts)}, warnings)
        return 0
    for line in warnings[:1]:
        more = f" and {len(warnings) - 1} more" if len(warnings) > 1 else ""
        print(f'warning: {line}{more}; run "lh memory scan"', file=sys.stderr)
    if not entries:
        print(f"{name}: no entries")
    for number, (entry, text) in enumerate(zip(entries, texts, strict=True)):
        tags = "".join(f" #{t}" for t in entry.tags)
        print(("\n" if number else "") + f"[{entry.id}] {entry.created}{tags}")
        print(text)
    return 0


def _memory_query(args: argparse.Namespace) -> int:
    from lean_harness.memory import query, search

    memory = _memory()
    shards = [*([args.shard] if args.shard else []), *args.shards]
    min_score = search.DEFAULT_MIN_SCORE if args.min_score is None else args.min_score
    answer = query.ask(
        memory,
        args.query,
        limit=args.limit,
        max_tokens=args.max_tokens,
        shards=shards,
        tags=args.tags,
        min_score=min_score,
    )
    masked = [r for r in answer.results if r.masked]
    warnings = [
        f"{memory.shown(memory.shard_path(r.shard))}: entry {r.id} holds what looks like a credential (masked here);"
        ' run "lh memory scan"'
        for r in masked
    ]
    if args.json:
        rows = [
            {
                "id": r.id,
                "shard": r.shard,
                "score": r.score,
                "tokens": r.tokens,
                "created": r.created,
                "tags": list(r.tags),
                "text": r.text,
                "cut": r.cut,
            }
            for r in answer.results
        ]
        _emit("memory get", {"query": answer.query, "results": rows, "total_tokens": answer.total_tokens}, warnings)
        return 0
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    for number, r in enumerate(answer.results):
        tags = "".join(f" #{t}" for t in r.tags)
        print(
            ("\n" if number else "")
            + f"[{r.shard}/{r.id}] score {r.score:.2f}, {r.tokens} tokens, {r.created[:10]}{tags}"
        )
        print(r.text)
    return 0


def _memory_lint(args: argparse.Namespace) -> int:
    from lean_harness.memory import query

    found = query.unreachable(_memory())
    if args.json:
        rows = [{"id": u.id, "shard": u.shard, "title": u.title} for u in found]
        _emit("memory lint", {"unreachable": rows})
        return 1 if found else 0
    for u in found:
        print(f"{u.shard}/{u.id}: its first line does not find it in the top 5: {u.title}")
    if found:
        print(
            f"{len(found)} entr{'y' if len(found) == 1 else 'ies'} no query is likely to find;"
            " give each a first line that names its subject",
            file=sys.stderr,
        )
        return 1
    print("every entry is found by its own first line")
    return 0


def _memory_scan(args: argparse.Namespace) -> int:
    from lean_harness.memory.leaks import scan_paths

    if args.paths:
        root = Path.cwd()
        paths = [Path(p) for p in args.paths]
    else:
        memory = _memory()
        memory.check_dir()
        root, paths = memory.root, [memory.config.memory_dir]
    leaks, skipped = scan_paths(paths, root)
    if args.json:
        rows = [
            {
                "path": leak.path,
                "line": leak.line,
                "column": leak.column,
                "rule": leak.rule,
                "description": leak.description,
                "preview": leak.preview,
                "entry": leak.entry,
            }
            for leak in leaks
        ]
        _emit("memory scan", {"findings": rows, "skipped": skipped})
        return 1 if leaks else 0
    for leak in leaks:
        where = f" (entry {leak.entry})" if leak.entry else ""
        print(f"{leak.path}:{leak.line}:{leak.column}: {leak.description}{where}: {leak.preview} [rule {leak.rule}]")
    for line in skipped:
        print(line, file=sys.stderr)
    if leaks:
        print(
            f"{len(leaks)} possible credential(s); remove them from the files (and rotate them if they are real),"
            " or mark a false positive with --allow-secret RULE on lh memory put",
            file=sys.stderr,
        )
        return 1
    print("no credentials found")
    return 0


def _memory_index(args: argparse.Namespace) -> int:
    from lean_harness.memory import store

    memory = _memory()
    result = store.reindex(memory, check=args.check)
    over = result.tokens > result.budget
    if args.json:
        _emit(
            "memory index",
            {
                "path": result.path,
                "fresh": result.fresh_before,
                "written": result.written,
                "tokens": result.tokens,
                "budget": result.budget,
                "titles": result.titles,
                "duplicates": list(result.duplicates),
            },
            [f'{result.path} is stale; run "lh memory index"'] if args.check and not result.fresh_before else [],
        )
    elif args.check:
        for line in result.duplicates:
            print(line, file=sys.stderr)
        if result.fresh_before:
            print(f"{result.path} is up to date ({result.tokens} of {result.budget} tokens)")
        else:
            print(f'{result.path} is stale; run "lh memory index"', file=sys.stderr)
    else:
        for line in result.duplicates:
            print(f"removed a copy: {line}")
        state = "written" if result.written else "unchanged"
        print(f"{result.path} {state} ({result.tokens} of {result.budget} tokens, {result.titles} newest titles)")
    if over:
        print(f"warning: {result.path} is over its token budget", file=sys.stderr)
    return 1 if args.check and not result.fresh_before else 0


def _memory_status(args: argparse.Namespace) -> int:
    from lean_harness.memory import store

    result = store.status(_memory())
    if args.json:
        totals = result.totals
        _emit(
            "memory status",
            {
                "encoding": result.label,
                "exact": result.exact,
                "shards": [
                    {
                        "name": s.name,
                        "description": s.description,
                        "path": s.path,
                        "entries": s.entries,
                        "tokens": s.tokens,
                    }
                    for s in result.shards
                ],
                "total_tokens": totals.tokens,
                "token_budget": totals.budget,
                "compact_at_percent": totals.compact_at_percent,
                "compact_threshold": totals.threshold,
                "compaction_due": totals.compaction_due,
                "index": {
                    "path": result.index_path,
                    "tokens": result.index_tokens,
                    "budget": result.index_budget,
                    "fresh": result.index_fresh,
                },
            },
        )
    else:
        _print_status(result)
    return 0


def _print_status(result: Any) -> None:
    width = max([len(s.name) for s in result.shards] + [5])
    print(f"{'shard':<{width}}  {'entries':>7}  {'tokens':>7}")
    for shard in result.shards:
        print(f"{shard.name:<{width}}  {shard.entries:>7}  {shard.tokens:>7}")
    totals = result.totals
    print(
        f"{'total':<{width}}  {sum(s.entries for s in result.shards):>7}  {totals.tokens:>7}"
        f"  of {totals.budget} ({totals.percent}%; compaction above {totals.compact_at_percent}%)"
    )
    fresh = "fresh" if result.index_fresh else 'stale: run "lh memory index"'
    print(f"index: {result.index_path}, {result.index_tokens} of {result.index_budget} tokens, {fresh}")
    print(f"token counts: {result.label}")
    if totals.compaction_due:
        print('compaction is due: run "lh memory compact"')
