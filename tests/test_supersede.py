"""`lh memory put --supersedes`: the new entry is live, each superseded one in the archive with a
pointer to it, in one commit; chains across shards, refusals that change nothing, branch merges."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support import lh, snapshot


def put(root: Path, shard: str, text: str, *supersedes: str) -> str:
    args = [x for key in supersedes for x in ("--supersedes", key)]
    done = lh("memory", "put", shard, text, *args, "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["id"])


def ids(root: Path, shard: str) -> list[str]:
    done = lh("memory", "get", shard, "--json", cwd=root)
    return [e["id"] for e in json.loads(done.stdout)["entries"]]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_a_chain_across_shards_leaves_only_its_head_live(project: Path) -> None:
    first = put(project, "seed", "The main database is Postgres 14")
    raw = (project / ".agents/memory/seed.md").read_text().split("\n\n")[-1]
    second = put(project, "insights", "The main database is Postgres 16 since the migration", first)
    third = put(project, "failures", "The main database is Postgres 17; upgraded for the index bug", second)
    assert ids(project, "seed") == []
    assert ids(project, "insights") == []
    assert ids(project, "failures") == [third]
    index = (project / ".agents/memory/INDEX.md").read_text()
    assert "Postgres 17" in index
    assert "Postgres 14" not in index
    assert "Postgres 16" not in index
    found = json.loads(lh("memory", "get", "--query", "main database Postgres", "--json", cwd=project).stdout)
    assert [hit["id"] for hit in found["results"]] == [third]
    archive = (project / ".agents/memory/archive/seed.md").read_text()
    assert f'<!-- lh:archive superseded-by="{second}" -->\n{raw}' in archive  # the entry byte for byte
    shown = lh("memory", "expand", first, "--print", cwd=project)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"entry {first} is one of 3 in a chain of supersessions, oldest first:"
    assert [line.split(" ", 2)[2] for line in lines if line.startswith("[")] == [
        f"superseded by {second} (.agents/memory/archive/seed.md)",
        f"superseded by {third} (.agents/memory/archive/insights.md)",
        "live in failures",
    ]
    data = json.loads(lh("memory", "expand", third, "--print", "--json", cwd=project).stdout)
    assert [(e["id"], e["superseded_by"]) for e in data["chain"]] == [(first, second), (second, third), (third, "")]


def test_an_unknown_id_or_a_cycle_is_refused_and_nothing_changes(project: Path) -> None:
    kept = put(project, "seed", "Builds run with make")
    before = snapshot(project)
    done = lh("memory", "put", "seed", "Builds run with ninja", "--supersedes", "nope", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        'entry nope is in no shard; nothing was written. "lh memory get SHARD" lists the ids'
        ' (a superseded entry is in the archive: "lh memory expand ID --print" shows its successor)\n'
    )
    done = lh("memory", "put", "seed", "Builds run with make", "--supersedes", kept, cwd=project)
    assert (done.returncode, done.stderr) == (2, f"entry {kept} would supersede itself, a cycle; nothing was written\n")
    done = lh(
        "memory", "put", "seed", "Builds run with ninja", "--supersedes", kept, "--supersedes", "nope", cwd=project
    )
    assert done.returncode == 2
    assert snapshot(project) == before
    newer = put(project, "seed", "Builds run with ninja", kept)
    done = lh("memory", "put", "seed", "Builds run with bazel", "--supersedes", kept, cwd=project)
    assert done.returncode == 2
    assert f"entry {kept} is in no shard" in done.stderr
    assert ids(project, "seed") == [newer]


def branches(project: Path) -> str:
    git(project, "init", "-q", "-b", "main")
    old = put(project, "seed", "Deploys go out on Fridays")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "memory")
    return old


def merge(project: Path, branch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "merge", "-q", "--no-edit", branch], cwd=project, capture_output=True, text=True, check=False
    )


def test_two_branches_that_superseded_one_entry_differently_are_a_conflict(project: Path) -> None:
    old = branches(project)
    git(project, "checkout", "-qb", "other")
    theirs = put(project, "seed", "Deploys go out on Tuesdays", old)
    git(project, "commit", "-qam", "tuesdays")
    git(project, "checkout", "-q", "main")
    ours = put(project, "seed", "Deploys go out every day", old)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "daily")
    assert merge(project, "other").returncode == 0  # the memory dir merges by union
    done = lh("memory", "index", cwd=project)
    assert done.returncode == 1
    assert f"entry {old} is superseded by" in done.stderr
    assert "both sides of a merge superseded it" in done.stderr
    assert {theirs, ours} <= set(done.stderr.replace(")", " ").replace(";", " ").split())
    # Resolved as the message says: one head supersedes the other.
    put(project, "seed", "Deploys go out every day", theirs)
    assert lh("memory", "index", cwd=project).returncode == 0
    assert ids(project, "seed") == [ours]


def test_a_branch_that_kept_the_entry_merges_cleanly_and_one_that_changed_it_conflicts(project: Path) -> None:
    old = branches(project)
    git(project, "checkout", "-qb", "other")
    put(project, "insights", "Unrelated finding about caching")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "unrelated")
    git(project, "checkout", "-q", "main")
    head = put(project, "seed", "Deploys go out on Tuesdays", old)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "tuesdays")
    assert merge(project, "other").returncode == 0
    assert lh("memory", "index", cwd=project).returncode == 0
    assert ids(project, "seed") == [head]
    # A copy the merge brings back with the same text goes; a changed one is a conflict.
    shard = project / ".agents/memory/seed.md"
    archived = (project / ".agents/memory/archive/seed.md").read_text().split(f'superseded-by="{head}" -->\n')[1]
    entry = archived[: archived.index(f'<!-- /lh:entry id="{old}" -->')] + f'<!-- /lh:entry id="{old}" -->\n'
    assert entry.startswith(f'<!-- lh:entry id="{old}"')
    shard.write_text(shard.read_text() + "\n" + entry)
    done = lh("memory", "index", cwd=project)
    assert done.returncode == 0, done.stderr
    assert ids(project, "seed") == [head]
    shard.write_text(shard.read_text() + "\n" + entry.replace("Fridays", "Mondays"))
    before = snapshot(project)
    done = lh("memory", "index", cwd=project)
    assert done.returncode == 1
    assert "is here again with other content; one side of a merge superseded it, the other changed it" in done.stderr
    assert snapshot(project) == before
