"""Compaction meets git: merges, rebases and cherry-picks end with each entry once, or a named conflict.

Real git, real `lh` processes, the union driver `lh init` configures (adr/0008, adr/0012).
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from lean_harness.memory.shard import parse
from support import lh, snapshot

MEMORY = ".agents/memory"
DETAIL = "\nCause: found in the nightly run; the fix and its test are linked in the pull request."


def git(root: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60, check=False)
    if ok:
        assert result.returncode == 0, f"git {' '.join(args)}: {result.stdout}{result.stderr}"
    return result


def run(root: Path, *args: str, epoch: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {"SOURCE_DATE_EPOCH": str(epoch)} if epoch is not None else None
    result = lh(*args, cwd=root, env=env)
    assert result.returncode == 0, result.stderr
    return result


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def census(root: Path, shard: str = "failures") -> Counter[str]:
    """How many times each entry is held: live, or in the archive group of a live digest."""
    live = parse((root / MEMORY / f"{shard}.md").read_text("utf-8")).entries
    held: Counter[str] = Counter(e.id for e in live if "digest" not in e.tags)
    archive = root / MEMORY / "archive" / f"{shard}.md"
    if archive.exists():
        groups = archive.read_text("utf-8").split('<!-- lh:archive digest="')[1:]
        digests = {e.id for e in live if "digest" in e.tags}
        for group in groups:
            if group.split('"', 1)[0] in digests:
                held.update(e.id for e in parse(group.split("\n", 1)[1]).entries)
    return held


@pytest.fixture
def repo(project: Path) -> Path:
    """A repository whose failures shard holds eight notes on main, ready to compact (keepNewest 2)."""
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "commit.gpgsign", "false")
    run(project, "config", "set", "memory.tokenBudget", "330")
    run(project, "config", "set", "memory.keepNewest", "2")
    for number in range(8):
        run(
            project,
            "memory",
            "put",
            "failures",
            f"base note {number}: the worker stalls" + DETAIL,
            epoch=1_000 + number,
        )
    commit(project, "base")
    return project


def written_ids(root: Path) -> set[str]:
    return set(census(root))


@pytest.mark.parametrize("keep", [0, 2], ids=["adjacent", "apart"])
def test_compact_on_one_branch_and_append_on_the_other_keeps_each_entry_once(repo: Path, keep: int) -> None:
    """With keepNewest 0 the compaction removes the very entries the other side appends after, and
    union brings them back live beside their digest; lh memory index keeps the digest's copy."""
    if keep != 2:
        run(repo, "config", "set", "memory.keepNewest", str(keep))
        run(
            repo, "config", "set", "memory.tokenBudget", "250"
        )  # all eight merge: the appended note sits right after them
        commit(repo, "keep")
    base = written_ids(repo)
    git(repo, "checkout", "-q", "-b", "topic")
    note = "topic: the proxy drops idle connections" + DETAIL
    added = json.loads(run(repo, "memory", "put", "failures", note, "--json", epoch=2_000).stdout)
    commit(repo, "topic")
    git(repo, "checkout", "-q", "main")
    compacted = json.loads(run(repo, "memory", "compact", "--json").stdout)
    assert compacted["digests"]
    commit(repo, "compact")
    git(repo, "merge", "-q", "--no-edit", "topic")
    before = census(repo)
    out = run(repo, "memory", "index").stdout
    copies = sorted(key for key, count in before.items() if count > 1)
    assert bool(copies) == (keep == 0)  # union brought back what the compaction removed next to the append
    assert sorted(line.split(": entry ")[1].split()[0] for line in out.splitlines() if "again" in line) == copies
    held = census(repo)
    assert set(held) == base | {added["id"]}
    assert max(held.values()) == 1
    assert lh("memory", "index", "--check", cwd=repo).returncode == 0
    doctor = json.loads(lh("doctor", "--json", cwd=repo).stdout)
    assert next(c for c in doctor["checks"] if c["id"] == "index")["status"] == "ok"


def test_an_entry_compacted_on_one_branch_and_changed_on_the_other_is_a_named_conflict(repo: Path) -> None:
    first = parse((repo / MEMORY / "failures.md").read_text("utf-8")).entries[0]
    git(repo, "checkout", "-q", "-b", "topic")
    run(repo, "memory", "put", "failures", "base note 0: the worker stalls on Windows" + DETAIL, "--id", first.id)
    commit(repo, "topic")
    git(repo, "checkout", "-q", "main")
    compacted = json.loads(run(repo, "memory", "compact", "--json").stdout)
    (digest,) = compacted["digests"]
    assert first.id in [s["id"] for s in digest["sources"]]
    commit(repo, "compact")
    git(repo, "merge", "-q", "--no-edit", "topic")
    before = snapshot(repo)
    lines = (repo / MEMORY / "failures.md").read_text("utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, start=1) if text.startswith(f'<!-- lh:entry id="{first.id}"'))
    archived = (repo / MEMORY / "archive" / "failures.md").read_text("utf-8").splitlines()
    kept = next(n for n, text in enumerate(archived, start=1) if text.startswith(f'<!-- lh:entry id="{first.id}"'))
    message = (
        f"{MEMORY}/failures.md:{line}: entry {first.id} is merged into digest {digest['id']}"
        f" ({MEMORY}/archive/failures.md:{kept}) and is here again with other content; one side of a merge"
        " compacted it, the other changed it: delete the version you do not want (to keep this one, delete it"
        ' from the archive group and the digest\'s sources), then run "lh memory index"\n'
    )
    for args in (["memory", "index"], ["memory", "index", "--check"]):
        result = lh(*args, cwd=repo)
        assert (result.returncode, result.stderr) == (1, message)
    doctor = json.loads(lh("doctor", "--json", cwd=repo).stdout)
    check = next(c for c in doctor["checks"] if c["id"] == "index")
    assert (check["status"], check["message"]) == ("fail", message.removesuffix("\n"))
    assert snapshot(repo) == before


def test_a_branch_rebased_onto_a_compaction_keeps_each_entry_once(repo: Path) -> None:
    base = written_ids(repo)
    git(repo, "checkout", "-q", "-b", "topic")
    added = []
    for number in range(3):
        text = f"topic note {number}: the cache misses after a deploy" + DETAIL
        added.append(json.loads(run(repo, "memory", "put", "failures", text, "--json", epoch=3_000 + number).stdout))
        commit(repo, f"topic {number}")
    git(repo, "checkout", "-q", "main")
    run(repo, "memory", "compact")
    commit(repo, "compact")
    git(repo, "checkout", "-q", "topic")
    git(repo, "rebase", "-q", "main")
    run(repo, "memory", "index")
    held = census(repo)
    assert set(held) == base | {a["id"] for a in added}
    assert max(held.values()) == 1
    assert lh("memory", "index", "--check", cwd=repo).returncode == 0


def test_a_cherry_picked_note_already_on_the_branch_ends_up_once(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "topic")
    note = "topic: tar on macOS lacks --wildcards" + DETAIL
    added = json.loads(run(repo, "memory", "put", "failures", note, "--json", epoch=4_000).stdout)
    commit(repo, "the note")
    picked = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "main")
    run(repo, "memory", "compact")
    run(repo, "memory", "put", "failures", note, epoch=4_100)  # found again on main, later
    commit(repo, "compact and the same note")
    git(repo, "cherry-pick", picked)
    run(repo, "memory", "index")
    held = census(repo)
    assert held[added["id"]] == 1
    assert max(held.values()) == 1
    assert lh("memory", "index", "--check", cwd=repo).returncode == 0
