"""The git checks, asked of git itself (check-ignore, check-attr), so global excludes and negations count."""

from __future__ import annotations

import subprocess
from pathlib import Path

from lean_harness.doctor import NO_CONFIG, Project, Verdict, listed
from lean_harness.files import display

PROBE = "lh-doctor-probe"


def top_level(root: Path) -> tuple[str | None, str]:
    """The work tree holding `root`, or None and why the git checks cannot run."""
    try:
        done = _git(root, "rev-parse", "--show-toplevel")
    except FileNotFoundError:
        return None, "git is not installed"
    if done.returncode != 0:
        return None, "not in a git repository"
    return done.stdout.strip(), ""


def git_ignore(p: Project) -> Verdict:
    """Git ignores every artifacts.ignored pattern and no artifacts.committed path."""
    if p.git_top is None or p.config is None:
        return _skipped(p)
    cfg = p.config
    ignored = {_probe(pattern): pattern for pattern in cfg.ignored if pattern and not pattern.startswith(("!", "#"))}
    ignored[f"{p.shown(cfg.cache_dir).rstrip('/')}/{PROBE}"] = "memory.cacheDir"
    committed = {(c + f"{PROBE}.md" if c.endswith("/") else c): c for c in cfg.committed}
    ignored[f"{p.shown(cfg.personal_dir)}/{PROBE}.md"] = "the personal memory"
    for name in cfg.shared_names:
        committed[p.shown(cfg.memory_dir / f"{name}.md")] = "memory.dir"
    matches = _check_ignore(p.root, [*ignored, *committed])
    problems: list[str] = []
    for probe, pattern in ignored.items():
        rule = matches.get(probe)
        if rule is None or rule[2].startswith("!"):
            why = f" (un-ignored by {rule[0]}:{rule[1]}: {rule[2]})" if rule else ""
            problems.append(f"{pattern} is not ignored by git (tried {probe}){why}")
    for probe, pattern in committed.items():
        rule = matches.get(probe)
        if rule is not None and not rule[2].startswith("!"):
            problems.append(
                f"{probe} is ignored by git ({rule[0]}:{rule[1]}: {rule[2]}) but belongs in git ({pattern})"
            )
    tracked = _git(p.root, "ls-files", "--", p.shown(cfg.cache_dir)).stdout.split("\n")[0]
    if tracked:
        problems.append(
            f"{tracked} is committed although it is derived data; git rm -r --cached {p.shown(cfg.cache_dir)}"
        )
    return listed(
        problems,
        f"{'lh doctor --fix adds the managed .gitignore block; ' if ignored else ''}"
        "remove or negate the ignore rule that git names",
        f"git ignores {len(ignored)} ignored patterns and none of {len(committed)} committed paths",
    )


def git_merge(p: Project) -> Verdict:
    """Git merges the shards with its union driver (adr/0008-merges.md)."""
    if p.git_top is None or p.config is None:
        return _skipped(p)
    shard = p.shown(p.config.memory_dir / f"{p.config.shard_names[0]}.md")
    fields = _git(p.root, "check-attr", "-z", "merge", "--", shard).stdout.split("\0")
    value = fields[2] if len(fields) > 2 else "unspecified"
    return listed(
        [f"git merges {shard} with merge={value}, not union, so branches that add entries conflict"]
        if value != "union"
        else [],
        "lh doctor --fix (adds the managed .gitattributes block)",
        f"git merges {shard} with its union driver",
    )


def _skipped(p: Project) -> Verdict:
    if p.config is None:
        return NO_CONFIG
    return Verdict("skip", f"skipped: {p.git_missing}")


def _probe(pattern: str) -> str:
    """A path that the ignore pattern should match."""
    path = pattern.strip().lstrip("/").removeprefix("**/").replace("**", PROBE).replace("*", PROBE).replace("?", "x")
    return path + PROBE if path.endswith("/") else path


def _check_ignore(root: Path, paths: list[str]) -> dict[str, tuple[str, str, str]]:
    """For each path that an ignore rule matches: (source, line, pattern); negations included."""
    done = _git(root, "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin", stdin="\0".join(paths) + "\0")
    fields = done.stdout.split("\0")
    found: dict[str, tuple[str, str, str]] = {}
    for at in range(0, len(fields) - 3, 4):
        source, line, pattern, path = fields[at : at + 4]
        if pattern:
            found[path] = (display(Path(source), root), line, pattern)
    return found


def _git(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=root, input=stdin, capture_output=True, text=True, encoding="utf-8", check=False
    )
