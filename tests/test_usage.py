"""The usage record (usage.py), `lh memory stats`, and compaction by use, on real processes."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from lean_harness import usage
from lean_harness.cli import main
from support import lh

REPO = Path(__file__).resolve().parents[1]
RECORD = ".agents/events.ndjson"


def aws_key_id(seed: int = 5) -> str:
    """A key id in AWS's format, made up at run time (never a real credential)."""
    rng = random.Random(seed)
    return "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def put(root: Path, shard: str, text: str) -> str:
    done = lh("memory", "put", shard, text, "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    key: str = json.loads(done.stdout)["id"]
    return key


def session_start(root: Path, session: str) -> str:
    """The session-start hook as a client runs it: its JSON event piped into hooks/lh-hook."""
    event = json.dumps({"session_id": session, "cwd": str(root), "hook_event_name": "SessionStart"})
    done = subprocess.run(
        ["sh", str(REPO / "hooks" / "lh-hook"), "session-start"],
        input=event,
        capture_output=True,
        text=True,
        cwd=root,
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_PLUGIN_ROOT"},
        timeout=60,
        check=True,
    )
    return done.stdout


def stats(root: Path) -> dict[str, Any]:
    done = lh("memory", "stats", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def uses(root: Path) -> dict[str, tuple[int, int]]:
    return {e["id"]: (e["uses"], e["listed"]) for e in stats(root)["entries"]}


@pytest.fixture
def repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    return project


def test_get_a_query_and_a_session_start_are_counted(repo: Path) -> None:
    lock = put(repo, "failures", "test_lock hangs on Windows: open the lock file in binary mode")
    retry = put(repo, "failures", "the retry loop in http_client hides a race with keep-alive")
    stash = put(repo, "quirks", "git stash drops untracked files unless given -u")
    assert lh("memory", "get", "failures", cwd=repo).returncode == 0
    assert lh("memory", "get", "--query", "windows lock binary", cwd=repo).returncode == 0
    assert lh("config", "set", "memory.indexTokenBudget", "400", cwd=repo).returncode == 0
    (repo / ".agents/memory/insights.md").write_text(
        "# insights\n\nNon-obvious findings.\n\n" + "A paragraph of prose outside entries, long. " * 90, "utf-8"
    )  # the memory no longer fits the budget: session start lists titles instead of showing entries
    assert lh("memory", "index", cwd=repo).returncode == 0
    shown = session_start(repo, "0d6f2c1e-5b7a-4c1e-9a55-2f1c3e4d5a6b")
    assert "git stash drops untracked files" in shown
    assert uses(repo) == {lock: (2, 1), retry: (1, 1), stash: (0, 1)}
    data = stats(repo)
    assert data["command"] == "memory stats"
    assert data["recorded"] is True
    assert [(s["name"], s["entries"], s["used"], s["used_share"]) for s in data["shards"]] == [
        ("failures", 2, 2, 1.0),
        ("quirks", 1, 0, 0.0),
    ]
    stash_tokens = next(e["tokens"] for e in data["entries"] if e["id"] == stash)
    assert data["shards"][1]["unused_tokens"] == stash_tokens
    assert data["totals"]["sessions"] == 1
    assert data["totals"]["uses"] == 3
    lines = (repo / RECORD).read_text("ascii").splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["get", "query", "session-start", "session-start"]
    assert json.loads(lines[2])["session"] == f"{zlib.crc32(b'0d6f2c1e-5b7a-4c1e-9a55-2f1c3e4d5a6b'):08x}"
    assert json.loads(lines[3])["more"] == 1


def test_a_memory_shown_whole_at_session_start_counts_as_used(repo: Path) -> None:
    lock = put(repo, "failures", "test_lock hangs on Windows: open the lock file in binary mode")
    stash = put(repo, "quirks", "git stash drops untracked files unless given -u")
    assert "git stash drops untracked files" in session_start(repo, "s-1")
    assert uses(repo) == {lock: (1, 0), stash: (1, 0)}
    assert stats(repo)["totals"]["sessions"] == 1


def test_eight_parallel_readers_lose_no_count(repo: Path) -> None:
    keys = [put(repo, "failures", f"note {n}: the cache at level {n} needs a flush") for n in range(3)]
    script = "import sys; from lean_harness.cli import main\nfor _ in range(3): main(['memory', 'get', 'failures'])"
    readers = [subprocess.Popen([sys.executable, "-c", script], cwd=repo, stdout=subprocess.DEVNULL) for _ in range(8)]
    assert [reader.wait(timeout=120) for reader in readers] == [0] * 8
    assert uses(repo) == dict.fromkeys(keys, (24, 0))


def test_parallel_writers_lose_nothing_while_the_record_folds(repo: Path) -> None:
    script = (
        "import sys; from lean_harness import usage; usage.LIMIT = 4000\n"
        "for n in range(150): usage.record(sys.argv[1], 'get', [('s', 'a'), ('s', 'b'), ('t', 'c')])"
    )
    writers = [subprocess.Popen([sys.executable, "-c", script, str(repo)]) for _ in range(8)]
    assert [writer.wait(timeout=120) for writer in writers] == [0] * 8
    found, _, _ = usage.counted(repo)
    assert {key: value[:2] for key, value in found.items()} == {
        ("s", "a"): (1200, 0),
        ("s", "b"): (1200, 0),
        ("t", "c"): (1200, 0),
    }
    assert (repo / RECORD).stat().st_size < 4000 + usage.LINE_BYTES * 8


def test_folding_keeps_the_record_bounded(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usage, "LIMIT", 3000)
    old = [f'{{"t":"2020-01-01T00:00:{n % 60:02d}Z","kind":"get","shard":"s","ids":["old-{n}"]}}\n' for n in range(60)]
    (repo / RECORD).write_text("".join(old), "ascii")
    for n in range(10):
        usage.record(repo, "get", [("s", f"new-{n}")])
    assert (repo / RECORD).stat().st_size <= 3000
    found, _, _ = usage.counted(repo)
    assert {f"new-{n}" for n in range(10)} <= {key for _, key in found}  # the entries used longest ago go first
    assert len(found) < 70


def test_a_long_event_is_split_into_lines_under_pipe_buf(repo: Path) -> None:
    ids = [f"{n:064d}" for n in range(40)]
    usage.record(repo, "get", [("failures", key) for key in ids])
    lines = (repo / RECORD).read_bytes().splitlines()
    assert len(lines) > 1
    assert all(len(line) < usage.LINE_BYTES for line in lines)
    assert [key for line in lines for key in json.loads(line)["ids"]] == ids


def test_the_record_holds_no_entry_text_no_query_text_and_no_credential(repo: Path) -> None:
    secret = aws_key_id()
    put(repo, "failures", "the zeppelin migration needs the quorum flag set")
    assert lh("memory", "get", "failures", cwd=repo).returncode == 0
    assert lh("memory", "get", "--query", f"zeppelin quorum {secret}", cwd=repo).returncode == 0
    session_start(repo, secret)
    session_start(repo, f"ghp_{secret}")
    text = (repo / RECORD).read_text("ascii")
    for word in ("zeppelin", "quorum", "migration", secret[4:], "ghp_"):
        assert word not in text
    tags = [event["session"] for event in map(json.loads, text.splitlines()) if event["kind"] == "session-start"]
    assert [len(tag) for tag in tags] == [8, 8]
    assert tags[0] != tags[1]


def test_git_ignores_the_record(repo: Path) -> None:
    put(repo, "failures", "the retry loop hides a race")
    assert lh("memory", "get", "failures", cwd=repo).returncode == 0
    assert (repo / RECORD).is_file()
    done = subprocess.run(["git", "check-ignore", "-q", RECORD], cwd=repo, check=False)
    assert done.returncode == 0


def test_a_fold_killed_before_its_rename_leaves_nothing_git_lists(repo: Path) -> None:
    # The process dies at the fold's rename, the worst moment: its new file is written and not in place.
    script = (
        "import os, sys; from lean_harness import usage; usage.LIMIT = 2000\n"
        "sys.addaudithook(lambda event, args: os._exit(9) if event == 'os.rename' else None)\n"
        "for n in range(100): usage.record(sys.argv[1], 'get', [('s', f'k{n}')])"
    )
    done = subprocess.run([sys.executable, "-c", script, str(repo)], check=False)
    assert done.returncode == 9
    listed = subprocess.run(
        ["git", "status", "--porcelain", "-uall"], cwd=repo, capture_output=True, text=True, check=True
    )
    assert [line for line in listed.stdout.splitlines() if "events" in line] == []
    assert usage.counted(repo)[0]  # the record still reads


def test_a_fold_renames_once_from_the_cache_into_place_and_leaves_no_temp_file(repo: Path) -> None:
    script = (
        "import sys; from lean_harness import usage; usage.LIMIT = 1200; renames = []\n"
        "sys.addaudithook(lambda event, args: renames.append(args[:2]) if event == 'os.rename' else None)\n"
        "for n in range(20): usage.record(sys.argv[1], 'get', [('s', f'k{n}')])\n"
        "print(*(f'{a} {b}' for a, b in renames), sep='\\n')"
    )
    done = subprocess.run([sys.executable, "-c", script, str(repo)], capture_output=True, text=True, check=True)
    cache = repo / ".agents/.cache/lh"
    [(temp, target)] = [line.split(" ") for line in done.stdout.splitlines()]  # one fold, one rename
    assert (os.path.dirname(temp), target) == (str(cache), str(repo / RECORD))
    assert os.path.basename(temp).startswith(".events.ndjson.")
    found = set(usage.counted(repo)[0])
    assert len(found) < 20  # folded: at most LIMIT // 400 totals, then the events after them
    assert ("s", "k19") in found
    assert [name for name in os.listdir(cache) if name.endswith(".tmp")] == []


def test_a_config_key_turns_recording_off(repo: Path) -> None:
    put(repo, "failures", "the retry loop hides a race")
    assert lh("config", "set", "memory.recordUsage", "false", cwd=repo).returncode == 0
    assert lh("memory", "get", "failures", cwd=repo).returncode == 0
    session_start(repo, "s-1")
    assert not (repo / RECORD).exists()
    assert lh("memory", "stats", cwd=repo).stdout.startswith("no usage recorded yet in .agents/events.ndjson")


def test_a_linked_record_is_never_written_through(repo: Path, tmp_path: Path) -> None:
    put(repo, "failures", "the retry loop hides a race")
    outside = tmp_path / "outside.ndjson"
    outside.write_text("", "utf-8")
    (repo / RECORD).symlink_to(outside)
    done = lh("memory", "get", "failures", cwd=repo)
    assert done.returncode == 0
    assert done.stderr == ""
    session_start(repo, "s-1")
    assert outside.read_text("utf-8") == ""
    shown = lh("memory", "stats", cwd=repo)
    assert shown.returncode == 0
    assert shown.stderr == (f"warning: {RECORD} cannot be read ({RECORD} is a symbolic link); uses are not counted\n")
    doctor = json.loads(lh("doctor", "--json", cwd=repo).stdout)
    check = next(c for c in doctor["checks"] if c["id"] == "usage-record")
    assert (check["status"], check["message"]) == (
        "warn",
        f"{RECORD} cannot be read ({RECORD} is a symbolic link); uses go uncounted and compaction orders by writing",
    )


def test_an_unreadable_record_is_a_warning_never_a_traceback(repo: Path) -> None:
    put(repo, "failures", "the retry loop hides a race")
    (repo / RECORD).write_bytes(b"\xff\xfe not utf-8\n")
    shown = lh("memory", "stats", cwd=repo)
    assert shown.returncode == 0
    assert shown.stderr.startswith(f"warning: {RECORD} cannot be read (")
    assert lh("memory", "compact", "--dry-run", cwd=repo).returncode == 0


def test_deinit_purge_removes_the_record(repo: Path) -> None:
    put(repo, "failures", "the retry loop hides a race")
    assert lh("memory", "get", "failures", cwd=repo).returncode == 0
    assert lh("deinit", "--purge", "--yes", cwd=repo).returncode == 0
    assert not (repo / RECORD).exists()


# -- compaction by use ----------------------------------------------------------------------------

NOTE = (
    "note {n}: the retry loop in module {n} hides a race\nCause: keep-alive connections close early.\nFix: retry once."
)


def compaction(root: Path) -> list[tuple[str, str]]:
    done = lh("memory", "compact", "--dry-run", "--json", cwd=root)
    return [(s["id"], s["why"]) for d in json.loads(done.stdout)["digests"] for s in d["sources"]]


def twelve_notes(root: Path) -> list[str]:
    assert main(["config", "set", "memory.tokenBudget", "550"]) == 0
    assert main(["config", "set", "memory.keepNewest", "2"]) == 0
    return [put(root, "failures", NOTE.format(n=n)) for n in range(12)]


def test_without_a_record_the_first_written_are_merged(repo: Path) -> None:
    keys = twelve_notes(repo)
    chosen = compaction(repo)
    assert chosen == [(key, "first written") for key in keys[:8]]


def test_with_a_record_never_used_entries_are_merged_first_then_the_least_recently_used(repo: Path) -> None:
    keys = twelve_notes(repo)
    lines = [
        f'{{"t":"2026-01-0{day}T00:00:00Z","kind":"get","shard":"failures","ids":["{keys[n]}"]}}\n'
        for day, n in ((1, 3), (2, 0), (3, 1), (4, 2))
    ]
    (repo / RECORD).write_text("".join(lines), "ascii")
    chosen = compaction(repo)
    never = [(key, "never used") for key in keys[4:10]]
    used = [(keys[3], "last used 2026-01-01"), (keys[0], "last used 2026-01-02")]
    # The digest lists its sources in the order written: the two used longest ago among the unused six.
    assert chosen == [used[1], used[0], *never]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_a_fifo_in_the_records_place_blocks_nothing(repo: Path) -> None:
    put(repo, "failures", "the retry loop hides a race")
    os.mkfifo(repo / RECORD)
    assert lh("memory", "get", "failures", cwd=repo).returncode == 0
    assert "the retry loop hides a race" in session_start(repo, "s-1")
    assert lh("memory", "stats", cwd=repo).returncode == 0
