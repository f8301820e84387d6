"""`lh memory compact` and `lh memory expand`: plans, digests, the archive, the journal, crashes."""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_harness.cli import main
from lean_harness.memory.compaction.compact import ShardInput, plan
from lean_harness.memory.shard import Entry, derive_id, parse, render_entry
from support import lh, snapshot

MEMORY = ".agents/memory"
NOTE = (
    "the retry loop in {module} hides a race\n"
    "Cause: the server closes keep-alive connections early, and the client reuses them.\n"
    "Fix: retry once on ConnectionResetError; it has held for 40 runs."
)
MODULES = ["http_client", "scheduler", "auth", "db", "cache", "render", "upload", "metrics", "watcher", "mailer"]
WORDS = ["lock", "cache", "retry", "fsync", "rename", "proxy", "token", "shard", "merge", "flaky", "windows", "ci"]


def entry(shard: str, text: str, created: int, **attrs: str) -> Entry:
    tags = tuple(attrs.pop("tags", "").split())
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created))
    return Entry(attrs.pop("id", derive_id(shard, text)), stamp, text, tags, tuple(attrs.items()))


def write_shard(root: Path, shard: str, entries: list[Entry]) -> None:
    """A shard as lh writes it: heading, description, entries separated by blank lines."""
    path = root / MEMORY / f"{shard}.md"
    head = path.read_text("utf-8").split("\n\n<!--")[0].rstrip("\n") + "\n"
    path.write_text(head + "".join("\n" + render_entry(e) for e in entries), encoding="utf-8")


def configure(budget: int, keep: int, encoding: str = "cl100k_base") -> None:
    assert main(["config", "set", "memory.tokenBudget", str(budget)]) == 0
    assert main(["config", "set", "memory.keepNewest", str(keep)]) == 0
    if encoding != "cl100k_base":
        assert main(["config", "set", "memory.encoding", encoding]) == 0


def notes(shard: str, count: int, start: int = 1_700_000_000) -> list[Entry]:
    return [
        entry(shard, f"note {n}: " + NOTE.format(module=MODULES[n % len(MODULES)]), start + n * 60)
        for n in range(count)
    ]


def compact_json(*args: str) -> dict[str, Any]:
    """`lh memory compact --json` run in this process, its output parsed."""
    data: dict[str, Any] = json.loads(quiet(["memory", "compact", "--json", *args])[1])
    return data


def archive_entries(root: Path, shard: str) -> tuple[Entry, ...]:
    path = root / MEMORY / "archive" / f"{shard}.md"
    return parse(path.read_text("utf-8")).entries if path.exists() else ()


# -- what compaction does ------------------------------------------------------------------------


def test_below_the_threshold_nothing_is_done_and_said_so(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "put", "failures", "one short note"]) == 0
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "compact"]) == 0
    assert capsys.readouterr().out == (
        "memory: 12 of 20000 tokens (0%); compaction threshold 16000, target 12000 tokens\n"
        "not above the compaction threshold: nothing to do (--force compacts down to the target)\n"
    )
    assert main(["memory", "compact", "--force"]) == 0
    assert capsys.readouterr().out.endswith("already at or below the target: nothing to do\n")
    assert snapshot(project) == before


def test_dry_run_prints_the_plan_and_writes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(350, 2)
    old = notes("failures", 8)
    write_shard(project, "failures", old)
    assert main(["memory", "index"]) == 0
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "compact", "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert snapshot(project) == before
    key = derive_id("failures", "\n".join(["digest", *(e.id for e in old[:6])]))
    assert captured.out.splitlines() == [
        "memory: 449 of 350 tokens (128%); compaction threshold 280, target 210 tokens",
        f"digest {key} in failures: 6 entries from 2023-11-14 to 2023-11-14, 337 -> 136 tokens",
        *(f"  {e.id} 2023-11-14 {e.title} (first written)" for e in old[:6]),
        "shard               entries              tokens",
        "failures             8 -> 3          449 -> 248",
        "total                                449 -> 248  (70% of the budget)",
        'dry run: nothing was written; "lh memory compact" does it',
    ]
    assert captured.err == (
        "warning: memory stays at 248 tokens, above the target of 210: 2 newest or pinned entries hold 112 tokens"
        " (memory.keepNewest, --pin); digests 136 (they keep the first line of each merged note); largest entries:"
        f" failures/{key} 136 (digest), failures/{old[6].id} 56 (newest), failures/{old[7].id} 56 (newest)."
        " Lower memory.keepNewest, unpin or shorten entries, or raise memory.tokenBudget\n"
    )


def test_a_real_run_merges_the_oldest_entries_of_the_largest_shard_first(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(900, 2)
    failures = notes("failures", 12)
    insights = notes("insights", 4, start=1_600_000_000)
    write_shard(project, "failures", failures)
    write_shard(project, "insights", insights)
    assert main(["memory", "index"]) == 0
    data = compact_json()
    assert data["command"] == "memory compact"
    assert data["version"] == 1
    assert data["problems"] == []
    digests = data["digests"]
    assert isinstance(digests, list)
    assert [d["shard"] for d in digests] == ["failures"]  # the largest shard, though insights is older
    merged = [s["id"] for s in digests[0]["sources"]]
    assert merged == [e.id for e in failures[: len(merged)]]  # oldest first
    assert data["total_after"] <= data["compact_target"]
    kept = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries
    assert kept[0].id == digests[0]["id"]
    assert [e.id for e in kept[1:]] == [e.id for e in failures[len(merged) :]]
    assert [e.id for e in archive_entries(project, "failures")] == merged
    assert main(["memory", "index", "--check"]) == 0


def test_the_digest_keeps_first_lines_once_and_records_range_sources_and_archive(project: Path) -> None:
    configure(150, 1)
    detail = "\nseen on the nightly runner and on two laptops; the workaround is in the docs, with a test"
    sources = [
        entry("quirks", "tar on macOS lacks --wildcards" + detail, 1_700_000_000, tags="macos"),
        entry("quirks", "Tar on macOS lacks --wildcards!" + detail, 1_700_000_100),
        entry("quirks", "- pip caches wheels by name only" + detail, 1_700_086_400, tags="ci"),
        entry("quirks", "the proxy strips auth headers", 1_700_090_000),
    ]
    write_shard(project, "quirks", sources)
    assert main(["memory", "compact"]) == 0
    first, kept = parse((project / MEMORY / "quirks.md").read_text("utf-8")).entries
    assert kept.id == sources[3].id
    ids = " ".join(e.id for e in sources[:3])
    assert first.text == (
        "Digest of 3 entries from 2023-11-14 to 2023-11-15, the first line of each (1 repeated line left out);"
        f" `lh memory expand {first.id} --print` shows them whole.\n"
        "- tar on macOS lacks --wildcards\n"
        "- pip caches wheels by name only"
    )
    assert first.created == sources[2].created
    assert first.tags == ("ci", "digest", "macos")
    assert first.extra == (
        ("from", sources[0].created),
        ("to", sources[2].created),
        ("entries", "3"),
        ("sources", ids),
        ("archive", "archive/quirks.md"),
    )
    assert first.id == derive_id("quirks", "digest\n" + ids.replace(" ", "\n"))


def test_newest_and_pinned_entries_are_never_merged(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(100, 2)
    old = notes("failures", 6)
    write_shard(project, "failures", old)
    assert main(["memory", "put", "failures", "--pin", "never merge this: the release key lives in the vault"]) == 0
    pinned = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries[-1]
    assert pinned.tags == ("pinned",)
    path = project / MEMORY / "failures.md"
    text = path.read_text("utf-8")
    # Make the pinned note the oldest, so only its tag protects it.
    path.write_text(text.replace(pinned.created, "2001-01-01T00:00:00Z"), encoding="utf-8")
    raw_before = {e.id: e.raw for e in parse(path.read_text("utf-8")).entries}
    capsys.readouterr()
    assert main(["memory", "compact"]) == 1  # the target is out of reach: the rest is protected
    captured = capsys.readouterr()
    after = {e.id: e.raw for e in parse(path.read_text("utf-8")).entries}
    for key in (pinned.id, old[-1].id, old[-2].id):
        assert after[key] == raw_before[key]
    assert captured.err.startswith("warning: memory stays at ")
    assert captured.err.endswith(
        f" failures/{pinned.id} 23 (pinned). Lower memory.keepNewest, unpin or shorten entries, or raise"
        " memory.tokenBudget\n"
    )


def test_superseded_entries_are_merged_first_and_an_update_counts_as_new(project: Path) -> None:
    configure(2000, 2)
    old = notes("failures", 30)
    updated = entry(
        "failures", "the deploy uses blue-green since v3", 1_700_000_050, id="deploy", updated="2026-01-01T00:00:00Z"
    )
    replaced = old[20]
    newer = entry("failures", "flaky upload test: the tmp dir is shared", 1_700_000_060, supersedes=replaced.id)
    write_shard(project, "failures", [*old[:20], updated, replaced, *old[21:], newer])
    data = compact_json("--force")
    (digest,) = data["digests"]
    merged = [s["id"] for s in digest["sources"]]
    assert "deploy" not in merged  # updated in place: the current version, as new as its update
    assert replaced.id in merged
    assert old[19].id not in merged  # the target was reached before the newer of the old ones


def test_a_second_run_changes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(1000, 2)
    write_shard(project, "failures", notes("failures", 10))
    write_shard(project, "quirks", notes("quirks", 5))
    assert main(["memory", "compact"]) == 0
    first = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "compact"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["memory", "compact", "--force"]) == 0
    assert snapshot(project) == first


def test_put_that_crosses_the_threshold_names_what_compaction_would_merge(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(520, 2)
    write_shard(project, "failures", notes("failures", 7))
    assert main(["memory", "index"]) == 0
    capsys.readouterr()
    assert main(["memory", "put", "insights", "a note that crosses the threshold, " + "words " * 20]) == 0
    err = capsys.readouterr().err.splitlines()
    ids = ", ".join(f"failures/{e.id}" for e in notes("failures", 7)[:5])
    assert err == [
        'warning: memory is over its compaction threshold (80% of 520 tokens); run "lh memory compact"',
        f"next compaction would merge 5 entries: {ids}",
    ]
    assert main(["memory", "put", "insights", "a later note, already over"]) == 0
    assert "next compaction" not in capsys.readouterr().err


# -- expand ---------------------------------------------------------------------------------------


def test_compact_then_expand_through_real_processes_gives_back_every_byte(project: Path) -> None:
    assert lh("config", "set", "memory.tokenBudget", "900", cwd=project).returncode == 0
    assert lh("config", "set", "memory.keepNewest", "2", cwd=project).returncode == 0
    write_shard(project, "failures", notes("failures", 10))
    write_shard(project, "quirks", notes("quirks", 6))
    assert lh("memory", "index", cwd=project).returncode == 0
    before = snapshot(project)
    done = lh("memory", "compact", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["written"] == sorted(data["written"])
    assert f"{MEMORY}/INDEX.md" in data["written"]
    assert lh("memory", "index", "--check", cwd=project).returncode == 0
    for digest in data["digests"]:
        restored = lh("memory", "expand", digest["id"], cwd=project)
        assert restored.returncode == 0, restored.stderr
        assert restored.stdout.startswith(
            f"restored {len(digest['sources'])} entries of {digest['shard']} from digest {digest['id']}"
            f" ({MEMORY}/archive/{digest['shard']}.md)\n"
        )
    assert snapshot(project) == before
    assert not (project / MEMORY / "archive").exists()


# -- credentials ----------------------------------------------------------------------------------


def aws_key_id(seed: int = 2) -> str:
    rng = random.Random(seed)
    return "AK" + "IA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))


def test_a_digest_that_would_hold_a_credential_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(400, 2)
    old = notes("failures", 8)
    leaky = entry(
        "failures",
        f"deploy key {aws_key_id()} was pasted here by hand\nrotate it, clear the shell history of the runner and check"
        " the audit log for any use since the paste; the runbook in docs/ops has every step",
        1_690_000_000,
    )
    write_shard(project, "failures", [leaky, *old])
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "compact"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"refused: the digest of shard failures would hold, from entry {leaky.id}, what looks like")
    assert err.endswith(
        '; nothing was written. Remove the credential from that entry, or add allow-secret="aws-access-key-id"'
        " to its header if it is not a secret\n"
    )
    assert snapshot(project) == before
    allowed = entry("failures", leaky.text, 1_690_000_000, **{"allow-secret": "aws-access-key-id"})
    write_shard(project, "failures", [allowed, *old])
    assert main(["memory", "compact"]) == 0
    digest = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries[0]
    assert digest.attr("allow-secret") == "aws-access-key-id"


# -- all or nothing -------------------------------------------------------------------------------


def compacted_copy(project: Path, tmp_path: Path) -> dict[str, bytes]:
    """The memory files after a compaction of a copy of the project."""
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    assert lh("memory", "compact", cwd=copy).returncode == 0
    return memory_files(copy)


JOURNAL = ".agents/.cache/lh/journal"


def memory_files(root: Path) -> dict[str, bytes]:
    """The memory's files, without temp files a killed writer left (the next write removes them)."""
    return {
        k: v
        for k, v in snapshot(root).items()
        if k.startswith(MEMORY) and not (k.rpartition("/")[2].startswith(".") and k.endswith(".tmp"))
    }


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")
def test_sigkill_during_compaction_leaves_the_old_state_or_the_new_one(project: Path, tmp_path: Path) -> None:
    """40 compactions of a 0.5 MB memory killed at random moments; the next command sees old or new.

    Half the kills land anywhere in the run; the other half between the latest kill that left the
    old state and the earliest that left the new one, which closes in on the moments of the commit.
    """
    configure(100_000, 5)
    for shard in ("failures", "insights", "quirks"):
        write_shard(project, shard, notes(shard, 1200))
    assert lh("memory", "index", cwd=project).returncode == 0
    pristine = tmp_path / "pristine"
    shutil.copytree(project, pristine)
    old = memory_files(pristine)
    started = time.monotonic()
    new = compacted_copy(pristine, tmp_path)
    span = time.monotonic() - started
    assert new != old
    rng = random.Random(20260201)
    seen = {"old": 0, "new": 0, "journal": 0}
    latest_old, earliest_new = 0.0, 2 * span
    for number in range(40):
        shutil.rmtree(project)
        shutil.copytree(pristine, project)
        process = subprocess.Popen(
            [sys.executable, "-m", "lean_harness", "memory", "compact"],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        close_in = number % 2 and latest_old < earliest_new
        delay = rng.uniform(latest_old, earliest_new) if close_in else rng.uniform(0.3 * span, 1.1 * span)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        journal = (project / JOURNAL).exists()
        seen["journal"] += journal
        assert lh("memory", "status", cwd=project).returncode == 0
        now = memory_files(project)
        assert now in (old, new), "a killed compaction left a mix of old and new files"
        seen["old" if now == old else "new"] += 1
        if now == old:
            latest_old = max(latest_old, delay)
        elif not journal:
            earliest_new = min(earliest_new, delay)
        assert lh("memory", "index", "--check", cwd=project).returncode == 0
    assert seen["old"] > 0, seen
    assert seen["new"] > 0, seen


# -- properties -----------------------------------------------------------------------------------

SHARDS = ("failures", "insights", "quirks")


@st.composite
def memories(draw: st.DrawFn) -> tuple[dict[str, list[Entry]], int, int]:
    """Shards of generated entries (some pinned, updated or superseding), a budget and keepNewest."""
    shards: dict[str, list[Entry]] = {}
    for shard in SHARDS:
        entries: list[Entry] = []
        for _ in range(draw(st.integers(0, 14))):
            lines = draw(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=3))
            text = "\n".join(" ".join(words) for words in lines)
            key = derive_id(shard, text, (e.id for e in entries))
            if any(e.text == text for e in entries):
                continue
            created = 1_700_000_000 + draw(st.integers(0, 40)) * 3600
            attrs: dict[str, str] = {"id": key}
            if draw(st.integers(0, 9)) == 0:
                attrs["tags"] = "pinned"
            if draw(st.integers(0, 9)) == 0:
                attrs["updated"] = "2026-01-01T00:00:00Z"
            if entries and draw(st.integers(0, 9)) == 0:
                attrs["supersedes"] = draw(st.sampled_from(entries)).id
            entries.append(entry(shard, text, created, **attrs))
        shards[shard] = entries
    return shards, draw(st.integers(100, 900)), draw(st.integers(0, 4))


def build(root: Path, shards: dict[str, list[Entry]], budget: int, keep: int) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    assert quiet(["-C", str(root), "init"])[0] == 0
    for key, value in (("tokenBudget", budget), ("keepNewest", keep), ("encoding", "estimate")):
        assert quiet(["config", "set", f"memory.{key}", str(value)])[0] == 0
    for shard, entries in shards.items():
        write_shard(root, shard, entries)
    assert quiet(["memory", "index"])[0] == 0


def shard_entries(root: Path) -> dict[str, tuple[Entry, ...]]:
    return {s: parse((root / MEMORY / f"{s}.md").read_text("utf-8")).entries for s in SHARDS}


def quiet(args: list[str]) -> tuple[int, str]:
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO

    out = StringIO()
    with redirect_stdout(out), redirect_stderr(StringIO()):
        code = main(args)
    return code, out.getvalue()


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(memory=memories())
def test_compaction_properties_on_generated_memories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory: tuple[dict[str, list[Entry]], int, int]
) -> None:
    shards, budget, keep = memory
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "a"
    build(root, shards, budget, keep)
    before = memory_files(root)
    old = shard_entries(root)
    code, out = quiet(["-C", str(root), "memory", "compact", "--json"])
    data = json.loads(out)
    assert code == (1 if data["total_after"] > data["compact_threshold"] and data["due"] else 0)

    # The keepNewest entries written last in each shard and pinned ones are byte-identical
    # afterwards. Reference model: walk the entries from the last written back, by hand.
    text = {s: (root / MEMORY / f"{s}.md").read_text("utf-8") for s in SHARDS}
    merged = {s["id"] for d in data["digests"] for s in d["sources"]}
    for shard, entries in old.items():
        protected = [e for e in entries if "pinned" in e.tags]
        for position in range(len(entries) - 1, -1, -1):
            later = 0
            for other_position, other in enumerate(entries):
                mine = max(entries[position].created, entries[position].attr("updated") or "")
                theirs = max(other.created, other.attr("updated") or "")
                if theirs > mine or (theirs == mine and other_position > position):
                    later += 1
            if later < keep:
                protected.append(entries[position])
        if len(entries) <= keep:
            assert text[shard] == before[f"{MEMORY}/{shard}.md"].decode("utf-8")
        for item in protected:
            assert item.id not in merged
            assert item.raw is not None
            assert item.raw in text[shard]

    # At or below the target whenever it can be reached; otherwise nothing more can be merged.
    status = json.loads(quiet(["-C", str(root), "memory", "status", "--json"])[1])
    assert status["total_tokens"] == data["total_after"]
    if data["digests"] and status["total_tokens"] > data["compact_target"]:
        again = json.loads(quiet(["-C", str(root), "memory", "compact", "--force", "--dry-run", "--json"])[1])
        assert again["digests"] == []
    after = memory_files(root)

    # Idempotent: a second run right after changes nothing.
    quiet(["-C", str(root), "memory", "compact"])
    assert memory_files(root) == after

    # Deterministic: the same input gives the same bytes.
    other = tmp_path / "b"
    build(other, shards, budget, keep)
    quiet(["-C", str(other), "memory", "compact"])
    assert memory_files(other) == after

    # Expand restores every source entry exactly, and with all digests expanded the memory holds
    # the same entries, byte for byte, as before (merged entries come back where their digest was).
    for digest in data["digests"]:
        code, _ = quiet(["-C", str(root), "memory", "expand", digest["id"]])
        assert code == 0
    restored = shard_entries(root)
    for shard in SHARDS:
        assert sorted(e.raw or "" for e in restored[shard]) == sorted(e.raw or "" for e in old[shard])
    # The sources come back where their digest was, so only same-second ties in the newest list may move.
    head = memory_files(root)[f"{MEMORY}/INDEX.md"].split(b"## Newest entries")[0]
    assert head == before[f"{MEMORY}/INDEX.md"].split(b"## Newest entries")[0]
    assert not (root / MEMORY / "archive").exists()


# -- order of writing -----------------------------------------------------------------------------


def burst(count: int, start: int = 0) -> list[str]:
    """Multi-line notes, so that a digest of them saves tokens."""
    return [
        f"burst note {n}: the {MODULES[n % len(MODULES)]} worker stalls under load\n"
        "Cause: a blocking read inside the event loop; fix: move it to a thread and add a timeout.\n"
        "Seen on the nightly runner and on two laptops; the regression test is test_worker_stall."
        for n in range(start, start + count)
    ]


# keepNewest = 3; what a forced compaction merges, by position, for each shard size. A lone
# candidate is left alone (a digest stands for two entries or more).
MERGED_BY_SIZE = {0: [], 1: [], 2: [], 3: [], 4: [], 5: [0, 1]}


@pytest.mark.parametrize("count", sorted(MERGED_BY_SIZE), ids=lambda n: f"{n}-entries")
def test_keep_newest_protects_every_shard_size(project: Path, count: int) -> None:
    configure(100, 3)
    written = [entry("failures", text, 1_700_000_000) for text in burst(count)]  # all in one second
    write_shard(project, "failures", written)
    assert main(["memory", "index"]) == 0
    before = snapshot(project)
    main(["memory", "compact", "--force"])
    after = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries
    live = {e.id for e in after if "digest" not in e.tags}
    merged = {e.id for e in archive_entries(project, "failures")}
    assert merged == {written[i].id for i in MERGED_BY_SIZE[count]}
    assert live - merged == {e.id for e in written} - merged
    if count <= 3:
        assert snapshot(project)[f"{MEMORY}/failures.md"] == before[f"{MEMORY}/failures.md"]


def write_burst(project: Path, kind: str, texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Write `texts` in one second, in this order, the way `kind` writes."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    if kind == "put":
        for text in texts:
            assert main(["memory", "put", "failures", text]) == 0
    elif kind == "import":
        source = project / "notes.jsonl"
        source.write_text("".join(json.dumps({"shard": "failures", "text": t}) + "\n" for t in texts), "utf-8")
        assert main(["memory", "import", str(source)]) == 0
    else:
        for text in texts:
            assert main(["memory", "note", text, "--shard", "failures"]) == 0
        assert main(["memory", "consolidate"]) == 0


@pytest.mark.parametrize("kind", ["put", "import", "consolidate"])
def test_a_same_second_burst_ranks_in_the_order_written(
    project: Path, kind: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = burst(12)
    ids = [derive_id("failures", t) for t in texts]
    assert sorted(ids) != ids  # the ids' order is not the order of writing, so the test can fail
    configure(200, 3)
    write_burst(project, kind, texts, monkeypatch)
    stored = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries
    assert [e.id for e in stored] == ids
    assert {e.created for e in stored} == {"2023-11-14T22:13:20Z"}
    index = (project / MEMORY / "INDEX.md").read_text("utf-8")
    newest = [line.split(": ", 1)[1] for line in index.split("## Newest entries\n\n")[1].splitlines()]
    assert newest == [t.split("\n")[0] for t in reversed(texts)][: len(newest)]
    assert len(newest) >= 3
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    capsys.readouterr()
    data = compact_json()
    merged = [s["id"] for d in data["digests"] for s in d["sources"]]
    assert merged == ids[: len(merged)]  # the first written go first
    kept = [e.id for e in parse((project / MEMORY / "failures.md").read_text("utf-8")).entries]
    assert kept[-3:] == ids[-3:]  # the last three written are never touched


# -- digests --------------------------------------------------------------------------------------

REALISTIC = [
    "CI fails when the postgres container starts slowly: add a pg_isready wait loop before the migrations",
    "Windows runners time out in test_lock because the lock file is opened in text mode; open it with O_BINARY",
    "failure number 1 of the nightly upload job: the S3 mock returns 503 on multipart uploads",
    "failure number 2 of the nightly upload job: the S3 mock returns 503 on multipart uploads",
    "the proxy strips the Authorization header on redirects, so requests to api.internal need allow_redirects=False",
    "never run `ruff format` on vendored/ — upstream diffs become unreadable",
]


def test_a_digest_keeps_every_note_findable_by_its_own_first_line(project: Path) -> None:
    configure(120, 1)
    detail = "\nMore detail: seen three times this month, logs in the CI artifacts, ticket linked in the PR."
    written = [entry("failures", text + detail, 1_700_000_000 + n) for n, text in enumerate(REALISTIC)]
    write_shard(project, "failures", [*written, entry("failures", "the newest note", 1_700_000_100)])
    data = compact_json()
    (digest,) = data["digests"]
    assert len(digest["sources"]) == len(REALISTIC)
    lines = digest["text"].split("\n")[1:]
    assert len(lines) == len(REALISTIC)  # lines that differ only by a number are not duplicates
    assert "- CI fails when postgres container starts slowly: add pg_isready wait loop before migrations" in lines
    for text in REALISTIC:
        found = lh("memory", "get", "--query", text, "--json", cwd=project)
        assert found.returncode == 0, found.stderr
        assert digest["id"] in [r["id"] for r in json.loads(found.stdout)["results"]][:3], text


def test_the_fillers_a_digest_drops_are_words_search_ignores() -> None:
    from lean_harness.memory.compaction.compact import FILLERS
    from lean_harness.memory.search.search import STOPWORDS

    assert FILLERS <= STOPWORDS


def test_one_line_notes_are_left_alone_and_the_command_says_why(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(100, 1)
    written = [
        entry(
            "quirks",
            f"{w} quirk seen on runner {n} when the nightly job restarts after the cache volume is remounted"
            " read-only and the artifact upload step retries against the mirror in the other region, which"
            " makes the job report success while the cache keeps its stale index until someone clears it by hand",
            1_700_000_000 + n,
        )
        for n, w in enumerate(WORDS)
    ]
    write_shard(project, "quirks", written)
    assert main(["memory", "index"]) == 0
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "compact"]) == 1
    captured = capsys.readouterr()
    assert captured.out.endswith(
        "nothing can be merged to save tokens: 1 entries are the newest of their shards or pinned, and a digest"
        f" of the {len(WORDS) - 1} others would hardly be smaller than they are (it keeps each one's first line)\n"
    )
    assert f"; {len(WORDS) - 1} single-line entries " in captured.err
    assert snapshot(project) == before


# -- expand --print -------------------------------------------------------------------------------


def test_a_digest_carried_to_another_project_says_what_it_is_and_offers_no_expand(
    project: Path, tmp_path: Path
) -> None:
    configure(450, 2)
    write_shard(project, "failures", notes("failures", 8))
    assert main(["memory", "compact"]) == 0
    digest = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries[0]
    exported = lh("memory", "export", "--output", str(tmp_path / "out.jsonl"), cwd=project)
    assert exported.returncode == 0, exported.stderr
    again = lh("memory", "import", str(tmp_path / "out.jsonl"), cwd=project)  # into its own project: nothing new
    assert again.returncode == 0, again.stderr
    assert parse((project / MEMORY / "failures.md").read_text("utf-8")).entries[0] == digest
    other = tmp_path / "other"
    other.mkdir()
    assert lh("init", cwd=other).returncode == 0
    assert lh("memory", "import", str(tmp_path / "out.jsonl"), cwd=other).returncode == 0
    carried = next(e for e in parse((other / MEMORY / "failures.md").read_text("utf-8")).entries if e.id == digest.id)
    intro = digest.text.split("\n")[0]
    assert carried.text.split("\n")[0] == (
        intro.split("; `lh memory expand")[0]
        + "; imported: the entries themselves stayed in the project that compacted them."
    )
    assert carried.text.split("\n")[1:] == digest.text.split("\n")[1:]
    refused = lh("memory", "expand", digest.id, cwd=other)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"entry {digest.id} in shard failures is not a digest; only digests written by"
        ' "lh memory compact" can be expanded\n'
    )


def test_a_digest_keeps_its_sources_other_attributes(project: Path) -> None:
    configure(100, 1)
    long = (
        "\nThe details: seen on the nightly runner and on two laptops; the workaround is documented with a test."
        "\nIt came back twice after upgrades of the base image, each time with the same symptom and the same fix."
    )
    sources = [
        entry("quirks", "pip caches wheels by name only" + long, 1_700_000_000, refs="pr/12 log/ci-3"),
        entry("quirks", "the proxy strips auth headers" + long, 1_700_000_100, refs="pr/12 issue/7", supersedes="x1"),
        entry("quirks", "tar on macOS lacks --wildcards" + long, 1_700_000_200),
    ]
    write_shard(project, "quirks", sources)
    main(["memory", "compact"])  # exit 1: the newest note alone is over the target
    digest = parse((project / MEMORY / "quirks.md").read_text("utf-8")).entries[0]
    assert digest.attr("sources") == f"{sources[0].id} {sources[1].id}"
    assert digest.attr("refs") == "issue/7 log/ci-3 pr/12"
    assert digest.attr("supersedes") == "x1"


def _words(texts: Sequence[str]) -> list[int]:
    """A token counter for planner tests: one token per word."""
    return [len(text.split()) for text in texts]


# Six two-line notes of 11 words each: 66 tokens.
PLANNED = tuple(
    Entry(f"e{n}", f"2026-01-{n + 1:02d}T00:00:00Z", f"Note {n} title\n" + " ".join(["body"] * 8)) for n in range(6)
)


@pytest.mark.parametrize(
    ("at_percent", "target_percent", "force", "due", "limits"),
    [
        pytest.param(100, 50, False, False, (66, 33), id="total-exactly-at-the-threshold"),
        pytest.param(99, 50, False, True, (65, 33), id="one-over-the-threshold"),
        pytest.param(100, 100, True, False, (66, 66), id="forced-total-exactly-at-the-target"),
        pytest.param(100, 99, True, True, (66, 65), id="forced-one-over-the-target"),
        pytest.param(100, 50, True, True, (66, 33), id="forced-between-target-and-threshold"),
    ],
)
def test_the_plan_starts_only_above_the_threshold_and_stops_at_the_target(
    at_percent: int, target_percent: int, force: bool, due: bool, limits: tuple[int, int]
) -> None:
    shard = ShardInput("failures", PLANNED, tuple(_words([e.text for e in PLANNED])))
    planned = plan(
        [shard],
        budget=66,
        at_percent=at_percent,
        target_percent=target_percent,
        keep_newest=2,
        counts=_words,
        force=force,
    )
    assert (planned.threshold, planned.target, planned.total_before) == (*limits, 66)  # whole tokens, rounded down
    if not due:
        assert (planned.digests, planned.total_after) == ((), 66)
        return
    sources = [s.id for d in planned.digests for s in d.sources]
    assert sources[:2] == ["e0", "e1"]  # the first written go first
    assert not {"e4", "e5"} & set(sources)  # keepNewest = 2
    assert planned.total_after < 66


@pytest.mark.parametrize(("off", "due"), [(-5, True), (5, False)], ids=["just-above", "at-the-threshold"])
def test_status_compact_and_doctor_agree_on_the_threshold(project: Path, off: int, due: bool) -> None:
    """At 10% of a budget ending in 5 the threshold is rounded down; memory is due only strictly above it."""
    assert main(["memory", "put", "failures", "the retry loop hides a race when the server closes early"]) == 0
    total = json.loads(quiet(["memory", "status", "--json"])[1])["total_tokens"]
    assert main(["config", "set", "memory.compactTargetPercent", "5"]) == 0
    assert main(["config", "set", "memory.compactAtPercent", "10"]) == 0
    assert main(["config", "set", "memory.tokenBudget", str(10 * total + off)]) == 0
    threshold = total - 1 if due else total
    status = json.loads(quiet(["memory", "status", "--json"])[1])
    assert (status["compact_threshold"], status["compaction_due"]) == (threshold, due)
    plan = compact_json("--dry-run")
    assert (plan["compact_threshold"], plan["due"]) == (threshold, due)
    checks = {c["id"]: c for c in json.loads(quiet(["doctor", "--json"])[1])["checks"]}
    assert (checks["budget"]["status"] == "warn") == due
